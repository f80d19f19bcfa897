#!/usr/bin/env python3
"""Alternating rounds: rg -uuu and each neuralis binary; wall and wait4 CPU per process."""
# Usage: TREE=/tmp/sync-tree ROUNDS=11 inspect_pair.py BEFORE/neuralis AFTER/neuralis
import os, sys, time, statistics, subprocess
tree = os.environ.get("TREE", "/tmp/sync-tree")
rounds = int(os.environ.get("ROUNDS", "9"))
bins = sys.argv[1:]
cmds = {"rg": ["rg", "-uuu", "--count", "--no-messages", "zzqqxxnowhere", tree]}
for b in bins:
    cmds[os.path.basename(b)] = [b, "inspect", tree]
def run(cmd):
    devnull = os.open(os.devnull, os.O_WRONLY)
    t = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t
    os.close(devnull)
    return wall, ru.ru_utime + ru.ru_stime
names = list(cmds)
for n in names: run(cmds[n])  # warm-up
res = {n: [] for n in names}
print("load", os.getloadavg())
for r in range(rounds):
    order = names if r % 2 == 0 else names[::-1]
    for n in order:
        res[n].append(run(cmds[n]))
print("load", os.getloadavg())
rg = res["rg"]
for n in names:
    w = [x[0] for x in res[n]]; c = [x[1] for x in res[n]]
    rw = [x[0] / y[0] for x, y in zip(res[n], rg)]; rc = [x[1] / y[1] for x, y in zip(res[n], rg)]
    print(f"{n:16} wall med {statistics.median(w):.3f}s cpu med {statistics.median(c):.3f}s  wall/rg med {statistics.median(rw):.3f}x  cpu/rg med {statistics.median(rc):.3f}x  wall/rg rounds {' '.join(f'{x:.2f}' for x in rw)}")
