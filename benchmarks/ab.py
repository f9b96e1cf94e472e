#!/usr/bin/env python3
"""Alternating A/B runs of the checkpoint benchmark (io.weir.benchmarks.CheckpointBenchmark) for two or more builds.

    benchmarks/ab.py --build A=/path/a-classpath.txt --build B=/path/b-classpath.txt [--rounds 3] VARIANT [ARGS...]

Each --build names a file holding one Java class path (the benchmark jar first, then what
benchmarks/target/classpath.txt lists, with the engine jars of that build). Round r runs the builds in the given
order (even r) or reversed (odd r), one fresh JVM each, with run.sh's JVM flags. Per run one JSON line on stdout:
records/s after the warm-up (the benchmark's summary), CPU per record (the process's user+system CPU time between
the first checkpoint completed after 10 s and the last one, divided by the rows counted in between; on a shared
machine this moves less with the load than records/s does), the median checkpoint duration, persisted bytes, and
the 1-minute load average before the run. Then one summary line per build: median, min and max of each measure.
Extra ARGS go to the benchmark (e.g. --duration-s=20). JAVA_OPTS adds JVM flags. Exit status 1 if a run failed.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

TICK = os.sysconf('SC_CLK_TCK')


def cpu_seconds(pid):
    fields = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def java_command(classpath, variant, extra):
    """The benchmark's JVM command line for one run (run.sh's JVM flags, then JAVA_OPTS)."""
    return ['java', '-Xms2g', '-Xmx2g', '-XX:+UseParallelGC', '-XX:+UseCondCardMark',
            '-Dorg.slf4j.simpleLogger.logFile=System.err', '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn'] + os.environ.get('JAVA_OPTS', '').split() + [
        '-cp', classpath, 'io.weir.benchmarks.CheckpointBenchmark', variant] + extra


def start(classpath, variant, extra):
    """Starts one run; @return the process and an iterator over its stdout's JSON lines, parsed (others skipped)."""
    p = subprocess.Popen(java_command(classpath, variant, extra), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)

    def lines():
        for line in p.stdout:
            try:
                yield json.loads(line)
            except ValueError:
                continue
    return p, lines()


def read_builds(parser, specs):
    """@return [(name, class path)] for --build NAME=FILE arguments; a bad one ends the program with a usage error."""
    builds = []
    for b in specs:
        name, _, path = b.partition('=')
        if not path or not os.path.isfile(path):
            parser.error(f'--build {b}: expected NAME=FILE, where FILE holds a class path')
        builds.append((name, open(path).read().strip()))
    return builds


def run(name, classpath, variant, extra):
    load = float(open('/proc/loadavg').read().split()[0])
    p, lines = start(classpath, variant, extra)
    marks, summary = [], None
    for j in lines:
        if j.get('type') == 'checkpoint':
            marks.append((j.get('elapsed_ms', 0), j.get('rows_counted', 0), cpu_seconds(p.pid)))
        elif j.get('type') == 'summary':
            summary = j
    code = p.wait()
    after = [m for m in marks if m[0] >= 10000]
    cpu_us = None
    if len(after) >= 2 and after[-1][1] > after[0][1]:
        cpu_us = round((after[-1][2] - after[0][2]) * 1e6 / (after[-1][1] - after[0][1]), 3)
    return {'build': name, 'variant': variant, 'exit': code, 'load_before': load,
            'records_per_s': summary and summary.get('records_per_s_after_warmup'),
            'cpu_us_per_record': cpu_us,
            'checkpoint_median_ms': summary and summary['duration_ms']['median'],
            'persisted_median_bytes': summary and summary.get('persisted_data_bytes', {}).get('median')}


def describe(xs):
    xs = [x for x in xs if x is not None]
    return {'median': statistics.median(xs), 'min': min(xs), 'max': max(xs)} if xs else None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--build', action='append', required=True, help='NAME=FILE with a class path')
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('variant')
    parser.add_argument('extra', nargs=argparse.REMAINDER)
    args = parser.parse_args()
    builds = read_builds(parser, args.build)
    results, failed = {name: [] for name, _ in builds}, False
    for r in range(args.rounds):
        for name, classpath in (builds if r % 2 == 0 else builds[::-1]):
            out = dict(run(name, classpath, args.variant, args.extra), round=r)
            failed |= out['exit'] != 0
            results[name].append(out)
            print(json.dumps(out), flush=True)
    for name, runs in results.items():
        print(json.dumps({'type': 'summary', 'build': name, 'variant': args.variant, 'runs': len(runs),
                          'records_per_s': describe([o['records_per_s'] for o in runs]),
                          'cpu_us_per_record': describe([o['cpu_us_per_record'] for o in runs]),
                          'checkpoint_median_ms': describe([o['checkpoint_median_ms'] for o in runs]),
                          'persisted_median_bytes': describe([o['persisted_median_bytes'] for o in runs]),
                          'load_before': [o['load_before'] for o in runs]}), flush=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
