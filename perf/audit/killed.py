#!/usr/bin/env python3
"""item 3: heat killed by SIGTERM/SIGINT midway, or SIGSEGV in thread 1, under each option."""
import os, subprocess, signal, sys, time, glob
WT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LIB = WT + "/tests/lib"
env = dict(os.environ, VALGRIND_LIB=WT + "/vglib", OMP_NUM_THREADS="2", PYTHONPATH=LIB)
os.chdir("/tmp/a27"); os.makedirs("kl", exist_ok=True)
CACHES = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=4194304,16,64"]

sys.path.insert(0, LIB)
from cgbd import cgfile
def totals_check(path):
    prof = cgfile.read(path) if hasattr(cgfile, "read") else cgfile.parse(path)
    p = prof.parts[0]
    selfsum = p.self_total()
    tot = dict(zip(p.events, p.totals)) if isinstance(p.totals, list) else p.totals
    summ = dict(zip(p.events, p.summary)) if isinstance(p.summary, list) else p.summary
    bad = [e for e in p.events if selfsum.get(e, 0) != tot.get(e, 0)]
    gap = {e: summ.get(e, 0) - tot.get(e, 0) for e in p.events if summ.get(e, 0) != tot.get(e, 0)}
    return "self=totals:%s summary-totals:%s" % ("ok" if not bad else "FAIL" + str(bad), gap or 0)

def check(out, opt):
    res = []
    res.append(totals_check(out))
    for tool in ("annotate_check.py",):
        r = subprocess.run([sys.executable, LIB + "/" + tool, out], capture_output=True, text=True, env=env)
        res.append("%s:%s" % (tool.split("_")[0].split(".")[0], "ok" if r.returncode == 0 else "FAIL " + (r.stdout + r.stderr).strip().splitlines()[-1][:150]))
    comps = {"paths": [".paths"], "sharing": [".sharing", ".sharing.txt"], "bandwidth": [".bandwidth"], "private-caches": []}[opt]
    for c in comps:
        f = out + c
        res.append("%s:%s" % (c, "%d B" % os.path.getsize(f) if os.path.exists(f) else "MISSING"))
    if opt == "paths":
        r = subprocess.run([sys.executable, LIB + "/pathscheck.py", out], capture_output=True, text=True, env=env)
        res.append("pathscheck:" + ("ok" if r.returncode == 0 else "FAIL " + (r.stdout + r.stderr).strip()[-150:]))
    if opt == "sharing":
        r = subprocess.run([sys.executable, LIB + "/annotate_check.py", out + ".sharing"], capture_output=True, text=True, env=env)
        res.append("annot(.sharing):" + ("ok" if r.returncode == 0 else "FAIL " + (r.stdout + r.stderr).strip()[-150:]))
        tail = open(out + ".sharing.txt").read() if os.path.exists(out + ".sharing.txt") else ""
        res.append("txt-has-ranking:%s" % ("rank" in tail))
    if opt == "bandwidth":
        r = subprocess.run([WT + "/tools/callgrind-bd_bandwidth", out + ".bandwidth"], capture_output=True, text=True, env=env)
        res.append("bw-script:" + ("ok" if r.returncode == 0 else "FAIL " + (r.stdout + r.stderr).strip()[-150:]))
    return " ".join(res)

for opt in ("private-caches", "sharing", "bandwidth", "paths"):
    for how in ("TERM", "INT", "segv"):
        out = "kl/%s.%s" % (opt, how)
        for f in glob.glob(out + "*"): os.remove(f)
        args = ["valgrind", "--tool=callgrind-bd", "-q"] + CACHES + ["--%s=yes" % opt, "--callgrind-out-file=" + out, "./heat"]
        args += ["20", "4", "segv"] if how == "segv" else ["20", "4", "wait"]
        t0 = time.time()
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        if how != "segv":
            line = p.stdout.readline()
            time.sleep(0.5)
            p.send_signal(getattr(signal, "SIG" + how))
        try:
            so, se = p.communicate(timeout=60)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            p.kill(); so, se = p.communicate(); rc = "HANG"
        err = [l for l in se.splitlines() if "warning: " not in l or "callgrind-bd" in l]
        print("%-15s %-5s rc=%s %.1fs stderr=%d | %s" % (opt, how, rc, time.time() - t0, len(err), check(out, opt)))
        for l in err: print("      stderr: " + l[:200])
