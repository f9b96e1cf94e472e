#!/usr/bin/env python3
"""quickcatch.py CP OUT N [SLOW_BELOW]: up to N short throughput-16 runs; each is judged on its rate between its 4th
and 10th checkpoint and killed at once when fast. A slow one gets: the JIT perf map, 6 s of perf, its nmethods' code
(io.weir and java.util.concurrent ones), a thread dump, then a full GC and 8 more checkpoints of rates."""
import json, os, subprocess, sys, time
cp, out, n = open(sys.argv[1]).read().strip(), sys.argv[2], int(sys.argv[3])
below = float(sys.argv[4]) if len(sys.argv) > 4 else 15.5
os.makedirs(out, exist_ok=True)
for run in range(1, n + 1):
    p = subprocess.Popen(['java', '-Xms2g', '-Xmx2g', '-XX:+UseParallelGC', '-XX:+UseCondCardMark', '-XX:+PreserveFramePointer',
                          '-Dorg.slf4j.simpleLogger.logFile=System.err', '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
                          '-cp', cp, 'io.weir.benchmarks.CheckpointBenchmark', 'throughput-16', '--duration-s=60'],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    cks, slow_at = [], None
    for line in p.stdout:
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if j.get('type') != 'checkpoint':
            continue
        cks.append((j['elapsed_ms'], j['rows_counted']))
        if len(cks) == 10 and slow_at is None:
            rate = (cks[9][1] - cks[3][1]) / (cks[9][0] - cks[3][0]) / 1000
            print(f'run {run}: {rate:.2f} M/s', flush=True)
            if rate >= below:
                p.kill()
                break
            slow_at = 10
            tag = f'{out}/slow-{run}'
            subprocess.run(['jcmd', str(p.pid), 'Compiler.perfmap'], capture_output=True)
            subprocess.run(['perf', 'record', '-p', str(p.pid), '-e', 'cpu-clock', '-F', '999', '-o', f'{tag}.data', '--',
                            'sleep', '6'], capture_output=True)
            subprocess.run(['jcmd', str(p.pid), 'Compiler.perfmap'], capture_output=True)
            open(f'{tag}.threads', 'w').write(subprocess.run(['jcmd', str(p.pid), 'Thread.print'], capture_output=True, text=True).stdout)
            pm = f'/tmp/perf-{p.pid}.map'
            subprocess.run(['cp', pm, f'{tag}.map'])
            with open(f'/proc/{p.pid}/mem', 'rb') as mem, open(pm) as m:
                for l in m:
                    a, s, name = l.rstrip('\n').split(' ', 2)
                    if 'io.weir' in name or 'java.util.concurrent' in name:
                        try:
                            mem.seek(int(a, 16))
                            open(f'{tag}-{a}.bin', 'wb').write(mem.read(int(s, 16)))
                        except OSError:
                            pass
        if slow_at and len(cks) == slow_at + 7:
            subprocess.run(['jcmd', str(p.pid), 'GC.run'], capture_output=True)
            print(f'run {run}: full GC after checkpoint {len(cks)}', flush=True)
        if slow_at and len(cks) >= slow_at + 16:
            p.kill()
            break
    p.wait()
    if slow_at:
        rates = [f'{(b[1]-a[1])/(b[0]-a[0])/1000:.1f}' for a, b in zip(cks, cks[1:])]
        print(f'run {run} rates: {" ".join(rates)}', flush=True)
