"""Hand-written .bandwidth and machine files for the tests of
callgrind-bd_bandwidth (tests/tool/bandwidth_reader.py, the reader as a
module; tests/tool/bandwidth_script.py, the installed command), with the
figures each test expects derived by hand here, from the traces below.

The format is docs/bandwidth-format.md's: per thread and path the
histogram `hist: s n ...` of the window sums s (bytes in the W time units
ending at a unit), over the thread's T units and the W after them.
"""

import os

# --- CONSTANT: one thread reading 8 bytes in each of T = 1000 units, W = 4.
# Window sums: units 1..3 ramp up (8, 16, 24), units 4..1000 hold 32
# (997 units), units 1001..1003 ramp down (24, 16, 8), unit 1004 is 0:
# hist 0:1, 8:2, 16:2, 24:2, 32:997; sum(n) = 1004 = T + W; sum(s*n) =
# 2*(8+16+24) + 32*997 = 32000 = W * V with V = 8000 bytes.
CONSTANT = """\
# callgrind-bd bandwidth requirements
version: 1
cmd: ./constant
pid: 4242
unit: instr
window: 4
future-key: the script must ignore keys it does not know
thread: 1
units: 1000
path: core<-L1
total: 8000
hist: 0 1 8 2 16 2 24 2 32 997
path: core->L1
total: 0
hist: 0 1004
path: flop
total: 0
hist: 0 1004
"""
CONSTANT_T = 1000
CONSTANT_BYTES = 8000
CONSTANT_PEAK = 8.0            # 32 / W bytes per unit

# A machine of 1e9 time units per second (clock 1e9, 1 instr per cycle):
# a bandwidth of X bytes/s is a limit of X/1e9 bytes per unit.
# Limits at and above the requirement (8 bytes per unit: b > L never holds).
MACHINE_ABOVE = """\
name: wide enough # a name may hold '#'
clock: 1e9
instr-per-cycle: 1   # one instruction per cycle
flop-per-cycle: 1
core<-L1: 8e9
core->L1: 100e9
"""
# core<-L1 halved: L = 4 bytes per unit, below the constant 8.
# Above L: b = 24/4 = 6 (2 units) and b = 8 (997 units): 999 units;
# V_L = 2*(6-4) + 997*(8-4) = 3992 bytes; T_L = V_L / L = 998 units
# (thesis figure 4.7: the rectangle of height L over the added units has
# the area above L; for a requirement constant over the whole run it is
# T units, here T - 2 because the ramps lie partly below L).
MACHINE_HALF = """\
clock: 1e9
instr-per-cycle: 1
core<-L1: 4e9
"""
HALF_ABOVE = 999
HALF_ADDED = 998.0

# --- DOMINANCE: two threads, W = 2, limits per unit core<-L1 4, LL<-mem 1,
# LL<-mem all 1.5 (machine: clock 1e9, 1 instr/cycle), peak 1e9 units/s.
# Thread 1 (T = 4): LL<-mem r = 4 4 0 0, core<-L1 r = 0 0 8 8.
#   LL<-mem window sums 4 8 4 0 | 0 0       -> hist 0:3 4:2 8:1, V = 8
#   core<-L1 window sums 0 0 8 16 | 8 0     -> hist 0:3 8:2 16:1, V = 16
# Thread 2 (T = 2): LL<-mem r = 1 1: sums 1 2 | 1 0 -> hist 0:1 1:2 2:1, V = 2
# All cores, aligned: LL<-mem r = 5 5 0 0: sums 5 10 5 0 | 0 0
#   -> hist 0:3 5:2 10:1, V = 10, units 4 (the largest T).
# Factors f = (s/W)/L per unit:
#   thread 1: u1 mem 2, all 5/2/1.5 = 1.67 -> LL<-mem, +1
#             u2 mem 4, all 3.33          -> LL<-mem, +3
#             u3 mem 2, core 1, all 1.67  -> LL<-mem, +1
#             u4 core 2, mem 0, all 0     -> core<-L1, +1
#     peak 0; dom core<-L1: 16 1; dom LL<-mem: 4 2 8 1 (+5 over 3 units)
#     time = 1+1 + 3+5 = 10 units
#   thread 2: u1 mem 0.5, all 1.67 -> LL<-mem all, +2/3
#             u2 mem 1,   all 3.33 -> LL<-mem all, +7/3
#     dom LL<-mem all: 5 1 10 1 (+3 over 2 units); time = 5 units
# Sum over threads 15 units = 1.5e-8 s.
DOMINANCE = """\
# callgrind-bd bandwidth requirements
version: 1
cmd: ./two-threads
pid: 77
unit: instr
window: 2
limits: dominance.machine
peak: 1e9
limit: core<-L1 4
limit: LL<-mem 1
limit: LL<-mem all 1.5
limit: flop 1

thread: 1
units: 4
peak-units: 0
path: core<-L1
total: 16
hist: 0 3 8 2 16 1
dom: 16 1
path: LL<-mem
total: 8
hist: 0 3 4 2 8 1
dom: 4 2 8 1
path: flop
total: 0
hist: 0 6
dom:
path: LL<-mem all
dom:

thread: 2
units: 2
peak-units: 0
path: core<-L1
total: 0
hist: 0 4
dom:
path: LL<-mem
total: 2
hist: 0 1 1 2 2 1
dom:
path: LL<-mem all
dom: 5 1 10 1

thread: all
units: 4
path: LL<-mem all
total: 10
hist: 0 3 5 2 10 1
"""
DOMINANCE_MACHINE = """\
clock: 1e9
instr-per-cycle: 1
flop-per-cycle: 1
core<-L1: 4e9
LL<-mem: 1e9
LL<-mem all: 1.5e9
"""
# thread -> {path: (dominated units, added units)}, and time in units
DOMINANCE_EXPECTED = {
    "1": ({"core<-L1": (1, 1.0), "LL<-mem": (3, 5.0)}, 10.0),
    "2": ({"LL<-mem all": (2, 3.0)}, 5.0),
}
DOMINANCE_SECONDS = 15e-9
# thesis figure 4.7 per path with the same limits:
#   thread 1 core<-L1: b = 8 (1 unit) > 4: V_L = 4, +1 unit
#   thread 1 LL<-mem:  b = 2 (2), 4 (1) > 1: V_L = 2*1 + 3 = 5, +5 units
#   thread 2 LL<-mem:  b = 0.5, 1: nothing above: +0
#   all LL<-mem all:   b = 2.5 (2), 5 (1) > 1.5: V_L = 2*1 + 3.5 = 5.5,
#                      +5.5/1.5 units
DOMINANCE_ADDED = {("1", "core<-L1"): (1, 1.0), ("1", "LL<-mem"): (3, 5.0),
                   ("2", "LL<-mem"): (0, 0.0),
                   ("all", "LL<-mem all"): (3, 5.5 / 1.5)}


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def replace_line(text, old, new):
    """text with its line `old` replaced (the test's broken variants)."""
    lines = text.split("\n")
    if old not in lines:
        raise ValueError("no line %r" % old)
    lines[lines.index(old)] = new
    return "\n".join(lines)
