#!/usr/bin/env python3
"""CPU ms per thread role of one `neuralis inspect` (perf record samples, load-independent
in CPU time): main thread split into outside / inside the reading threads' window."""
import subprocess, sys, collections, os
# Usage: TREE=/tmp/sync-tree inspect_threads.py path/to/neuralis (needs perf)
b = sys.argv[1]; tree = os.environ.get("TREE", "/tmp/sync-tree"); hz = 4000
subprocess.run(["perf", "record", "-q", "-F", str(hz), "-o", os.environ.get("PERF_DATA", "/tmp/inspect-threads.data"), b, "inspect", tree], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
out = subprocess.run(["perf", "script", "-i", os.environ.get("PERF_DATA", "/tmp/inspect-threads.data"), "-F", "pid,tid,time"], capture_output=True, text=True).stdout
s = []
for line in out.splitlines():
    p = line.replace(":", " ").replace("/", " ").split()
    if len(p) >= 3: s.append((int(p[0]), int(p[1]), float(p[2])))
pid = s[0][0]
tids = collections.Counter(t for _, t, _ in s)
first = {}; last = {}
for _, t, ts in s:
    first.setdefault(t, ts); last[t] = ts
others = sorted((t for t in tids if t != pid), key=lambda t: first[t])
# A 2-core machine: two walking threads, then two reading threads (then the drop thread).
walkers, readers = others[:2], others[2:4]
r0 = min(first[t] for t in readers); r1 = max(last[t] for t in readers)
w1 = max(last[t] for t in walkers)
main = [ts for _, t, ts in s if t == pid]
ms = lambda n: n * 1000 / hz
print(f"{os.path.basename(b)}: walkers {[round(ms(tids[t])) for t in walkers]} ms, readers {[round(ms(tids[t])) for t in readers]} ms, "
      f"main {ms(len(main)):.0f} ms: after walk before reads {ms(sum(w1 < x < r0 for x in main)):.0f}, during reads {ms(sum(r0 <= x <= r1 for x in main)):.0f}, after reads {ms(sum(x > r1 for x in main)):.0f}; reads window {1000*(r1-r0):.0f} ms")
