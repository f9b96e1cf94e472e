#!/usr/bin/env python3
"""abflags.py ROUNDS VARIANT NAME=CPFILE[:JVM FLAGS]... -- alternating runs of builds (a class path file each, as
for ab.py) with JVM flags per entry, one fresh JVM per run, the order reversed every other round; the environment
variable EXTRA holds benchmark arguments (e.g. "--duration-s=10 --warmup-s=4"). One JSON line per run (ab.run), then
per entry its records/s, median and how many runs lie within 15 % of it."""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')); sys.dont_write_bytecode = True
import ab
rounds = int(sys.argv[1]); variant = sys.argv[2]
sets = []
for a in sys.argv[3:]:
    n, rest = a.split('=', 1); cpf, _, flags = rest.partition(':')
    sets.append((n, open(cpf).read().strip(), flags))
res = {n: [] for n, _, _ in sets}
for r in range(rounds):
    for n, cp, flags in (sets if r % 2 == 0 else sets[::-1]):
        os.environ['JAVA_OPTS'] = flags
        o = ab.run(n, cp, variant, os.environ.get('EXTRA', '').split())
        res[n].append(o)
        print(json.dumps(dict(o, round=r)), flush=True)
for n, runs in res.items():
    rs = sorted(o['records_per_s'] / 1e6 for o in runs)
    med = rs[len(rs)//2] if len(rs) % 2 else (rs[len(rs)//2-1] + rs[len(rs)//2]) / 2
    print(n, 'M/s', ' '.join(f'{o["records_per_s"]/1e6:.2f}' for o in runs), 'median %.2f' % med,
          'within15 %d/%d' % (sum(abs(x/med-1) <= .15 for x in rs), len(rs)), flush=True)
