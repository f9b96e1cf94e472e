#!/usr/bin/env python3
"""Failover times of a 3-node weir cluster on this machine (docs/ha.md), as JSON lines on stdout.

Starts three `bin/weir node --cluster` processes from the distribution, submits one long job
(flights -> keyed aggregate sleeping per record -> file-2pc, checkpoint every 100 ms), then repeats:
signal the job's owner (kill -9, or kill -STOP), measure the time from the signal's delivery until a
node other than the signalled one logs a completed checkpoint of the job under a newer epoch
("processing elsewhere"), then restart (or SIGCONT and wait for) the signalled node. One `kill` line
per signal, then a `summary` line with median and max per signal and the 1-minute load average before
and after. Usage:

  benchmarks/ha-failover.py [--kills=10] [--stops=3] [--records=400000] [--dist=distribution/target/weir]

The job's checkpoints are unaligned: with aligned ones a restored run's first barrier waits behind
the backlog of records queued before the sleeping aggregate (up to ~20 s seen), which measured the
backlog, not the failover. Stdout carries JSON lines only; the nodes' logs stay in a temp directory
named on stderr when the run fails, and are deleted when it succeeds.
"""
import json, os, random, re, shutil, signal, socket, statistics, subprocess, sys, tempfile, time, urllib.request

args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
KILLS, STOPS, RECORDS = int(args.get("kills", 10)), int(args.get("stops", 3)), int(args.get("records", 400_000))
DIST = os.path.abspath(args.get("dist", "distribution/target/weir"))
WORK = tempfile.mkdtemp(prefix="weir-ha-bench-")
COMPLETED = re.compile(r"Job (\S+) completed checkpoint (\d+) under epoch (\d+) at (\d+)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# SIGTERM (and SIGINT, ignored in a background job) runs the cleanup below: no node process outlives the script
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
signal.signal(signal.SIGINT, lambda *_: sys.exit(130))
rest = [free_port() for _ in range(3)]
member = [free_port() for _ in range(3)]
members = ",".join(f"127.0.0.1:{p}" for p in member)
procs, starts = [None] * 3, [0] * 3


def start(i):
    starts[i] += 1
    err = open(f"{WORK}/n{i}-{starts[i]}.log", "w")
    env = dict(os.environ, JAVA_OPTS="-Dorg.slf4j.simpleLogger.log.io.weir.ha=info")
    procs[i] = subprocess.Popen([f"{DIST}/bin/weir", "node", "--port", str(rest[i]), "--data-dir", f"{WORK}/n{i}",
                                 "--cluster", members, "--cluster-port", str(member[i])],
                                stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL, env=env)


def get(i, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{rest[i]}{path}", timeout=10) as r:
        return json.load(r)


def wait(pred, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        try:
            v = pred()
            if v:
                return v
        except Exception:
            pass
        time.sleep(0.05)
    raise SystemExit(f"timed out waiting for {what}")


def completions():
    out = []
    for f in os.listdir(WORK):
        if f.endswith(".log"):
            out += [(int(m[4]), int(m[3]), f) for m in COMPLETED.finditer(open(f"{WORK}/{f}").read())]
    return out


def job_on(i):
    return next(j for j in get(i, "/cluster/jobs") if j["name"] == "ha-bench")


try:
    for i in range(3):
        start(i)
    for i in range(3):
        wait(lambda: len(get(i, "/cluster")["members"]) == 3, 300, f"node {i}")
    rnd = random.Random(7)
    with open(f"{WORK}/flights.jsonl", "w") as f:
        for _ in range(RECORDS):
            f.write(json.dumps({"date": "2001/01/01 00:00", "delay": rnd.randrange(-30, 300), "distance": 100,
                                "origin": "A" + chr(65 + rnd.randrange(20)), "destination": "ZZZ"}) + "\n")
    job = {"name": "ha-bench", "config": {"execution.checkpointing.interval": "100 ms",
                                          "execution.checkpointing.unaligned.enabled": "true",
                                          "execution.checkpointing.dir": f"{WORK}/checkpoints"},
           "operators": [{"id": "flights", "type": "file", "parallelism": 1, "config": {"path": "flights.jsonl", "format": "lines",
                          "schema": {"date": "string", "delay": "long", "distance": "long", "origin": "string", "destination": "string"}}},
                         {"id": "agg", "type": "keyed-aggregate", "parallelism": 2,
                          "inputs": [{"from": "flights", "partitioning": "hash", "keys": ["origin"]}],
                          "config": {"key": ["origin"], "aggregates": [{"fn": "count", "as": "n"}], "sleep-ms-per-record": 5}},
                         {"id": "out", "type": "file-2pc", "parallelism": 2, "inputs": ["agg"], "config": {"path": f"{WORK}/out"}}]}
    token = open(f"{WORK}/n0/security/admin.token").read().strip()
    req = urllib.request.Request(f"http://127.0.0.1:{rest[0]}/cluster/jobs?base-dir={WORK}", data=json.dumps(job).encode(),
                                 headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"}, method="POST")
    urllib.request.urlopen(req, timeout=30).read()
    results = {"kill-9": [], "kill-STOP": []}
    load_before = os.getloadavg()[0]
    for n in range(KILLS + STOPS):
        sig = "kill-9" if n < KILLS else "kill-STOP"
        alive = [i for i in range(3) if procs[i].poll() is None]
        j = wait(lambda: (lambda j: j if j["owner"] and any(e == j["epoch"] for _, e, _ in completions()) else None)(job_on(alive[0])),
                 120, "an owner with a checkpoint")
        owner = next(i for i in range(3) if j["owner"] == f"http://127.0.0.1:{rest[i]}")
        other = (owner + 1) % 3
        if sig == "kill-9":
            procs[owner].kill()  # kill(2) has returned: the process is dead from here on (wait() only reaps it)
            t0 = time.time()
            procs[owner].wait()
        else:
            os.kill(procs[owner].pid, signal.SIGSTOP)
            t0 = time.time()
        def moved():
            jj = job_on(other)
            return jj["owner"] and jj["owner"] != j["owner"] and [t for t, e, _ in completions() if e == jj["epoch"] and t > t0 * 1000]
        ts = wait(moved, 120, f"processing elsewhere after {sig} of node {owner}")
        ms = min(ts) - t0 * 1000
        results[sig].append(ms)
        print(json.dumps({"type": "kill", "signal": sig, "n": n + 1, "processing_elsewhere_ms": round(ms)}), flush=True)
        if sig == "kill-9":
            start(owner)
        else:
            os.kill(procs[owner].pid, signal.SIGCONT)
        for i in range(3):  # all members back and every backup in sync (docs/ha.md "safe point")
            wait(lambda: (lambda c: len(c["members"]) == 3 and c.get("safe", True))(get(i, "/cluster")), 300, f"node {i} back")
    summary = {"type": "summary", "records": RECORDS, "load_1m_before": load_before, "load_1m_after": os.getloadavg()[0]}
    for sig, v in results.items():
        if v:
            summary[sig] = {"n": len(v), "median_ms": round(statistics.median(v)), "max_ms": round(max(v))}
    print(json.dumps(summary), flush=True)
finally:
    for p in procs:
        if p and p.poll() is None:
            try:
                os.kill(p.pid, signal.SIGCONT)
            except OSError:
                pass
            p.kill()
            p.wait()
    if sys.exc_info()[0] is None:
        shutil.rmtree(WORK, ignore_errors=True)
    else:
        print(f"ha-failover: failed; the nodes' logs are in {WORK}", file=sys.stderr)
