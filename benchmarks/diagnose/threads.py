#!/usr/bin/env python3
"""threads.py CLASSPATH VARIANT: one run of the checkpoint benchmark (CLASSPATH: the class path itself, e.g.
"$(cat /tmp/b.cp)"), with the kernel's accounting of each task thread per checkpoint interval.

Per interval it prints the rate (M records/s) and, for the sources and for the counters (each pair summed over its two
subtasks): CPU used (cores), time runnable but waiting for a CPU (cores), nanoseconds of CPU per record, and
involuntary and voluntary context switches per second; then the share of 20 Hz samples in which both sources ran on
the same CPU. From /proc/PID/task/TID/schedstat (run and wait nanoseconds), status (switch counts) and stat (field 39,
the CPU the thread last ran on); the task threads are found by name in `jcmd PID Thread.print` 2 s after the start.

Reading it: CPU + wait near 2 cores for a pair means both of its threads were runnable throughout the interval (on
two CPUs, four busy threads always leave one waiting per CPU); less means they also slept, parked in their mailbox
(no input or no output buffer for longer than their yields) or blocked. If a slow interval shows the same CPU split
with more ns per record, each cycle did less work (caches, memory, a busy sibling on the host); if it shows a thread
getting less CPU while runnable, it is the scheduling; if it shows less CPU + wait, the threads waited for each other.
The first interval shown ends at the first checkpoint line read after the threads were found."""
import json, queue, re, sys, threading, time

import taskjvm

if len(sys.argv) != 3:
    sys.exit('usage: threads.py CLASSPATH VARIANT (CLASSPATH: the class path itself, e.g. "$(cat /tmp/b.cp)")')
cp, variant = sys.argv[1:3]
pid = None  # the benchmark JVM's
groups = None  # {'source': [tid, tid], 'counter': [tid, tid]} once found
same = [0, 0]  # samples with both sources on one CPU, samples
events = queue.Queue()  # (event, arrival ns, readings per group or None, same), in the order the lines arrive


def read(tid):
    """(run ns, wait ns, involuntary switches, voluntary switches) of one thread; zeros once it has ended."""
    base = f'/proc/{pid}/task/{tid}/'
    try:
        run, wait, _ = map(int, open(base + 'schedstat').read().split())
        status = open(base + 'status').read()
        vol = int(re.search(r'^voluntary_ctxt_switches:\s+(\d+)', status, re.M).group(1))
        invol = int(re.search(r'^nonvoluntary_ctxt_switches:\s+(\d+)', status, re.M).group(1))
        return run, wait, invol, vol
    except (OSError, ValueError):
        return 0, 0, 0, 0


def cpu_of(tid):
    try:
        return int(open(f'/proc/{pid}/task/{tid}/stat').read().rsplit(')', 1)[1].split()[36])
    except (OSError, ValueError, IndexError):
        return -1


def pump(stdout):
    """Reads the benchmark's lines as they come and takes the threads' readings as each arrives. Reading only after
    the threads were found (jcmd takes 0.5-1.5 s on a busy machine) would take several queued lines at one instant."""
    for line in stdout:
        if line.startswith('{'):
            g = groups
            events.put((json.loads(line), time.monotonic_ns(),
                        {k: [read(t) for t in ts] for k, ts in g.items()} if g else None, tuple(same)))
    events.put(None)


def sample():
    while p.poll() is None:
        cpus = [cpu_of(t) for t in groups['source']]
        if len(cpus) == 2 and -1 not in cpus:
            same[0] += cpus[0] == cpus[1]
            same[1] += 1
        time.sleep(0.05)


p = taskjvm.start(cp, variant)
pid = p.pid
threading.Thread(target=pump, args=(p.stdout,), daemon=True).start()
time.sleep(2)
if p.poll() is not None:
    sys.exit(f'the benchmark ended with status {p.returncode} before its task threads could be found (see its error above)')
tasks = taskjvm.task_threads(pid)
if not tasks:
    p.kill()
    sys.exit(f'no source or counter task threads in the JVM 2 s after its start (unknown variant {variant!r}? '
             'see benchmarks/run.sh --list)')
print('threads', tasks, file=sys.stderr)
groups = {g: [t for n, t in tasks.items() if g in n] for g in ('source', 'counter')}
threading.Thread(target=sample, daemon=True).start()
print('interval  M rec/s | sources: cpu  wait  ns/rec  invol/s  vol/s | counters: cpu  wait  ns/rec  invol/s  vol/s'
      ' | sources on one CPU')
prev = None
summary = None
while (item := events.get()) is not None:
    event, arrival, readings, shares = item
    if event.get('type') == 'summary':
        summary = event
        continue
    if event.get('type') != 'checkpoint' or readings is None:
        continue
    now = (arrival, event['rows_counted'], readings, shares, event['elapsed_ms'])
    if prev is not None:
        dt = (now[0] - prev[0]) / 1e9
        records = now[1] - prev[1]
        cells = []
        for g in ('source', 'counter'):
            d = [sum(n[k] - o[k] for n, o in zip(now[2][g], prev[2][g])) for k in range(4)]
            cells.append(f'{d[0] / 1e9 / dt:4.2f} {d[1] / 1e9 / dt:5.2f} {d[0] / max(records, 1):6.1f} '
                         f'{d[2] / dt:7.0f} {d[3] / dt:6.0f}')
        n = now[3][1] - prev[3][1]
        share = (now[3][0] - prev[3][0]) / n if n else float('nan')
        rate = records / (now[4] - prev[4]) / 1e3  # by the benchmark's clock
        print(f'{event["id"]:8d} {rate:8.2f} | {cells[0]} | {cells[1]} | {share:.2f}', flush=True)
    prev = now
p.wait()
if summary:
    print('records/s after warm-up: %.2f M' % (summary['records_per_s_after_warmup'] / 1e6))
