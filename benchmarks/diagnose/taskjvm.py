"""Shared by pin.py and threads.py: one run of the checkpoint benchmark in its own JVM, and its task threads."""
import re
import subprocess


def start(cp, variant):
    """Starts `CheckpointBenchmark VARIANT` on class path CP with ab.py's JVM flags; returns the Popen, whose stdout is
    the benchmark's JSON lines as text; its stderr (warnings and errors only) goes to ours."""
    return subprocess.Popen(['java', '-Xms2g', '-Xmx2g', '-XX:+UseParallelGC', '-XX:+UseCondCardMark',
                             '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', cp,
                             'io.weir.benchmarks.CheckpointBenchmark', variant],
                            stdout=subprocess.PIPE, text=True)


def task_threads(pid):
    """{thread name: Linux thread id} of the benchmark's source and counter task threads (not their asynchronous
    snapshot threads), read from `jcmd PID Thread.print`; empty if the JVM has not started them (or has ended)."""
    dump = subprocess.run(['jcmd', str(pid), 'Thread.print'], capture_output=True, text=True).stdout
    tasks = {}
    for m in re.finditer(r'^"([^"]+)".*?nid=(0x[0-9a-f]+)', dump, re.M):
        name, tid = m.group(1), int(m.group(2), 16)
        if re.search(r'(source|counter)', name) and 'AsyncOp' not in name:
            tasks[name] = tid
    return tasks
