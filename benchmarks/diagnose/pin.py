#!/usr/bin/env python3
"""pin.py CLASSPATH VARIANT CONFIG: one run of the checkpoint benchmark (CLASSPATH: the class path itself, e.g.
"$(cat /tmp/b.cp)"); 4 s after its start the task threads (named by jcmd Thread.print) are pinned with taskset by
CONFIG: split = sources on CPU 0, counters on CPU 1; pairs = source i and counter i on CPU i; cross = source i with
counter 1-i; none = not pinned. Prints the config, records/s after the warm-up and the rate of each checkpoint
interval (M records/s)."""
import subprocess, sys, time, json, re, threading

import taskjvm
cp, variant, config = sys.argv[1:4]
p = taskjvm.start(cp, variant)
lines = []
threading.Thread(target=lambda: [lines.append(l) for l in p.stdout], daemon=True).start()
time.sleep(4)
tasks = taskjvm.task_threads(p.pid)
print('threads', tasks, file=sys.stderr)
def pin(tid, cpu):
    subprocess.run(['taskset', '-p', '-c', str(cpu), str(tid)], capture_output=True)
if config != 'none':
    for name, tid in tasks.items():
        i = 1 if re.search(r'[#(]1\b|\b1/2|2/2', name) else 0
        src = 'source' in name
        cpu = {'split': 0 if src else 1, 'pairs': i, 'cross': i if src else 1 - i}[config]
        pin(tid, cpu)
p.wait()
time.sleep(0.5)
L = [json.loads(l) for l in lines if l.startswith('{')]
cps = [l for l in L if l.get('type') == 'checkpoint']
rates = [(b['rows_counted'] - a['rows_counted']) / (b['elapsed_ms'] - a['elapsed_ms']) / 1e3 for a, b in zip(cps, cps[1:])]
print(config, '%.2f' % (L[-1]['records_per_s_after_warmup'] / 1e6), ' '.join(f'{r:.1f}' for r in rates))
