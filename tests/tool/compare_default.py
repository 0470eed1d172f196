#!/usr/bin/env python3
"""Default options (event Ir): every single-threaded client under our tool
must give exactly the reference's self Ir per function, call counts and
inclusive Ir per arc, and totals. Our profile must also read cleanly in
callgrind_annotate and satisfy the conservation rule for Ir."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import checks    # noqa: E402
import harness   # noqa: E402


def tailcall_has_jmp():
    """The -O2 tailcall client must really contain jmp tail calls, or the
    test would not exercise what it is meant to."""
    exe = harness.build_client("tailcall")
    asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe],
                         capture_output=True, text=True, check=True).stdout
    jumps = [l for l in asm.splitlines()
             if "jmp" in l and ("<tail_leaf>" in l or "<tail_mid>" in l)]
    if len(jumps) < 2:
        return [("default/tailcall/objdump",
                 ["expected jmp to tail_leaf and tail_mid, found %d" % len(jumps)])]
    return [("default/tailcall/objdump", [])]


def case(client):
    def run():
        tag = "default-" + client
        ours, ref = harness.run_both(client, [], tag, shared=True)
        results = [checks.compare_check(tag.replace("-", "/", 1), ours, ref,
                                        events=["Ir"])]
        if os.path.exists(ours.out):
            results.append(checks.annotate_result(
                "default/%s/annotate" % client, ours))
            results.append(checks.conservation_result(
                "default/%s/conservation" % client, ours, ["Ir"]))
        return results
    return run


def main():
    cases = [("default/tailcall/objdump", tailcall_has_jmp)]
    cases += [("default/" + c, case(c)) for c in harness.EXACT_CLIENTS]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
