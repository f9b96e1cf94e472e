#!/usr/bin/env python3
"""perfagg.py DATA [N]: per task thread (comm benchmark-*), the top N symbols by samples, from perf script."""
import collections, re, subprocess, sys
data = sys.argv[1]; n = int(sys.argv[2]) if len(sys.argv) > 2 else 12
out = subprocess.run(['perf', 'script', '-i', data, '-F', 'comm,tid,ip,sym'], capture_output=True, text=True).stdout
per = collections.defaultdict(collections.Counter)
for line in out.splitlines():
    m = re.match(r'\s*(\S+)\s+(\d+)\s+[0-9a-f]+\s+(.*)', line)
    if not m or not m.group(1).startswith('benchmark'):
        continue
    sym = m.group(3).strip()
    sym = re.sub(r'\([^)]*\)$', '', sym).split(' ')[-1] if sym else '[unknown]'
    per[m.group(2)][sym] += 1
tot = sum(sum(c.values()) for c in per.values())
for tid, c in sorted(per.items()):
    t = sum(c.values())
    print(f'-- tid {tid}: {t} samples ({100*t/tot:.1f} %)')
    for s, k in c.most_common(n):
        print(f'   {100*k/t:5.1f} % {s}')
