#!/usr/bin/env python3
"""Per-thread scheduling of one run of the checkpoint benchmark (io.weir.benchmarks.CheckpointBenchmark).

    benchmarks/sched.py --build NAME=/path/classpath.txt [--runs 1] VARIANT [ARGS...]

A build is a class path file as for ab.py. Between the first checkpoint completed after 10 s and the last one, per
task thread (names from `jcmd PID Thread.print`, the rest summed as "other"): CPU time (/proc/PID/task/TID/stat
utime+stime), time runnable but waiting for a core and time slices run (/proc/PID/task/TID/schedstat), voluntary
context switches (the thread parked or blocked and was woken) and involuntary ones (preempted)
(/proc/PID/task/TID/status), each also per 1,000 rows counted; the machine's idle share of its cores
(/proc/stat) and the 1-minute load before the run; and, sampling the task threads' states (--sample-hz), the share
of samples in which k of them were runnable (k = 0..threads): with the job alone on the machine, samples with fewer
runnable task threads than cores are idle cores, a measure that other processes' load does not hide; which threads
were the only runnable ones then; and the longest stretches with none runnable ("stalls": samples, ms into the window
when it ended, ms it lasted). One JSON line per run on stdout; JAVA_OPTS adds JVM flags (e.g. a GC log, to match
stalls with safepoints).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
from ab import read_builds, start  # noqa: E402 (benchmarks/ab.py, beside this script)

TICK = os.sysconf('SC_CLK_TCK')


def threads(pid):
    out = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            stat = open(f'/proc/{pid}/task/{tid}/stat').read().rsplit(')', 1)[1].split()
            sched = open(f'/proc/{pid}/task/{tid}/schedstat').read().split()
            status = open(f'/proc/{pid}/task/{tid}/status').read()
        except OSError:
            continue
        vol = int(re.search(r'^voluntary_ctxt_switches:\s+(\d+)', status, re.M).group(1))
        invol = int(re.search(r'^nonvoluntary_ctxt_switches:\s+(\d+)', status, re.M).group(1))
        out[int(tid)] = {'cpu_s': (int(stat[11]) + int(stat[12])) / TICK, 'runqueue_wait_s': int(sched[1]) / 1e9,
                         'timeslices': int(sched[2]), 'voluntary_cs': vol, 'involuntary_cs': invol}
    return out


def machine():
    cpu = [int(x) for x in open('/proc/stat').readline().split()[1:]]
    return sum(cpu), cpu[3] + cpu[4]  # total, idle + iowait


def names(pid):
    try:
        dump = subprocess.run(['jcmd', str(pid), 'Thread.print'], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return {int(m.group(2), 16): m.group(1) for m in re.finditer(r'^"([^"]+)".*? nid=(0x[0-9a-f]+)', dump, re.M)}


def group(name):
    # job/vertex#subtask -> vertex#subtask (task threads); everything else is "other"
    return name.split('/', 1)[1] if name and '/' in name and '#' in name else 'other'


class StateSampler(threading.Thread):
    """Samples the run state (R = running or runnable) of the task threads every 1/hz s until stopped."""

    def __init__(self, pid, tids, hz):
        super().__init__(daemon=True)
        self.paths = {tid: f'/proc/{pid}/task/{tid}/stat' for tid in tids}
        self.period, self.stopped, self.lock = 1.0 / hz, threading.Event(), threading.Lock()
        self.histogram = [0] * (len(tids) + 1)  # samples with k task threads runnable
        self.runnable = {tid: 0 for tid in tids}  # samples in which each thread was runnable
        self.sets = {}  # the sorted tids of the runnable task threads -> samples
        # stretches with no task thread runnable: (samples, ms into the window when it ended, ms it lasted)
        self.stalls, self.stall, self.stall_start, self.t0 = [], 0, 0.0, time.monotonic()

    def run(self):
        while not self.stopped.wait(self.period):
            try:
                running = tuple(sorted(tid for tid, path in self.paths.items()
                                       if open(path).read().rsplit(')', 1)[1].split()[0] == 'R'))
            except OSError:
                return  # a task thread ended: the job is over
            now = time.monotonic()
            with self.lock:
                for tid in running:
                    self.runnable[tid] += 1
                self.histogram[len(running)] += 1
                self.sets[running] = self.sets.get(running, 0) + 1
                if not running:
                    self.stall_start = self.stall_start if self.stall else now
                    self.stall += 1
                elif self.stall:
                    self.stalls.append((self.stall, round((now - self.t0) * 1000), round((now - self.stall_start) * 1000, 1)))
                    self.stall = 0

    def snapshot(self):
        with self.lock:
            return {'histogram': list(self.histogram), 'runnable': dict(self.runnable), 'sets': dict(self.sets),
                    'stalls': list(self.stalls)}


def run(name, classpath, variant, extra, hz):
    load = float(open('/proc/loadavg').read().split()[0])
    p, lines = start(classpath, variant, extra)
    first = last = sampler = samples = None
    tnames, summary = {}, None
    for j in lines:
        if j.get('type') == 'checkpoint':
            if not tnames and j.get('elapsed_ms', 0) >= 5000:
                tnames = names(p.pid)
            if j.get('elapsed_ms', 0) >= 10000:
                try:
                    mark = (j.get('rows_counted', 0), threads(p.pid), machine())
                except OSError:
                    continue
                if first is None and hz:
                    task_tids = [t for t, n in tnames.items() if group(n) != 'other']
                    sampler = StateSampler(p.pid, task_tids, hz)
                    sampler.start()
                first = first or mark
                last = mark
                samples = sampler.snapshot() if sampler else None
        elif j.get('type') == 'summary':
            summary = j
    code = p.wait()
    if sampler:
        sampler.stopped.set()
        sampler.join()
    out = {'build': name, 'variant': variant, 'exit': code, 'load_before': load,
           'records_per_s': summary and summary.get('records_per_s_after_warmup'),
           'checkpoint_median_ms': summary and summary['duration_ms']['median']}
    if first and last and last[0] > first[0]:
        rows = last[0] - first[0]
        total, idle = last[2][0] - first[2][0], last[2][1] - first[2][1]
        out['rows'] = rows
        out['window_s'] = round(total / TICK / os.cpu_count(), 2)
        out['machine_idle_share'] = round(idle / total, 3)
        groups = {}
        for tid, after in last[1].items():
            before = first[1].get(tid, {k: 0 for k in after})
            g = groups.setdefault(group(tnames.get(tid)), {k: 0 for k in after})
            for k in after:
                g[k] += after[k] - before[k]
        cpu_all = sum(g['cpu_s'] for g in groups.values())
        out['cpu_us_per_record'] = round(cpu_all * 1e6 / rows, 4)
        out['threads'] = {
            g: {'cpu_s': round(v['cpu_s'], 2), 'runqueue_wait_s': round(v['runqueue_wait_s'], 2),
                'cpu_ns_per_row': round(v['cpu_s'] * 1e9 / rows, 1),
                'voluntary_cs_per_1000_rows': round(v['voluntary_cs'] * 1000 / rows, 3),
                'involuntary_cs_per_1000_rows': round(v['involuntary_cs'] * 1000 / rows, 3),
                'voluntary_cs': v['voluntary_cs'], 'involuntary_cs': v['involuntary_cs'], 'timeslices': v['timeslices']}
            for g, v in sorted(groups.items())}
        if samples and sum(samples['histogram']):
            n = sum(samples['histogram'])
            # with the job alone on the machine, fewer runnable task threads than cores leaves a core idle
            out['task_threads_runnable_share'] = [round(c / n, 3) for c in samples['histogram']]
            out['samples'] = n
            # which task threads were the only ones runnable then
            out['runnable_sets_below_cores'] = {
                '+'.join(group(tnames.get(t)) for t in key) or 'none': round(c / n, 3)
                for key, c in sorted(samples['sets'].items(), key=lambda kv: -kv[1]) if len(key) < os.cpu_count()}
            stalls = sorted(samples['stalls'])
            out['stalls'] = {'count': len(stalls), 'longest': stalls[-5:],
                             'samples_in_stalls_of_3_or_more': sum(x[0] for x in stalls if x[0] >= 3)}
            for tid, c in samples['runnable'].items():
                g = group(tnames.get(tid))
                if g in out['threads']:
                    out['threads'][g]['runnable_share'] = round(c / n, 3)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--build', action='append', required=True, help='NAME=FILE with a class path')
    parser.add_argument('--runs', type=int, default=1, help='runs per build, alternating builds')
    parser.add_argument('--sample-hz', type=float, default=200,
                        help='samples per s of the task threads\' run states (0: none)')
    parser.add_argument('variant')
    parser.add_argument('extra', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    builds = read_builds(parser, args.build)
    failed = False
    for r in range(args.runs):
        for bname, classpath in (builds if r % 2 == 0 else builds[::-1]):
            out = dict(run(bname, classpath, args.variant, args.extra, args.sample_hz), round=r, kind='sched')
            failed |= out['exit'] != 0
            print(json.dumps(out), flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
