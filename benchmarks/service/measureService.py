#!/usr/bin/env python3
"""What vtctx costs a real service: runs the service benchmark and writes one JSON line per run.

  measureService.py --java LABEL=JAVA [--java LABEL=JAVA ...] --backend-java JAVA
                    --service-dir DIR --shim-jar JAR --agent libvtctx.so
                    --empty-agent libvtctx_empty_agent.so --reader vtctx-reader --vegeta VEGETA
                    --out DIR [--rounds 5] [--configs a,b,...] [--carriers default,1] [--smoke]

The service (benchmarks/service/src: Helidon SE 4, OpenTelemetry SDK, PostgreSQL over JDBC, an
HTTP backend, JSON) runs in a fresh JVM per run. A variant is one JDK with one carrier count
("default": the JVM's, one per CPU; "1": -Djdk.virtualThreadScheduler.parallelism=1). Every
round runs every (variant, configuration) once, in a new random order, so that all of them
alternate in time on a shared machine. The configurations are the JMH benchmarks' own
(benchmarks/jmh/run.py CONFIGS: which agent and options, whether the shim writes, which reader);
the service checks at start that the agent and the shim are what its configuration says
(BenchConfig, shared with JMH).

One run: start the service (the agent's stats file records its mounts and virtual threads),
attach the configuration's reader, warm up at saturation, then measure
  * saturation: `--workers` closed-loop connections for `--saturation-seconds`: throughput and
    CPU per request;
  * fixed rate: the variant's rate for `--fixed-seconds`: p50/p99 latency and CPU per request.
CPU per request = the service process's utime+stime (/proc/PID/stat) over the phase, divided by
the requests completed in it. Each variant's fixed rate is `--load` times the saturation
throughput of a calibration run without an agent at the start (or `--rate`).

Writes DIR/runs.jsonl (one line per run), DIR/calibration.json, and per run DIR/runs/<run>/
(service, reader and agent logs, vegeta reports). Reader configurations need root (BPF); without
it they are skipped with a message. Exits non-zero, naming the log to read, if any run fails a
check (errors, spans missing, agent or shim not as configured, reader not attached).
"""
import argparse
import importlib.util
import json
import os
import random
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "scripts", "lib")]
from database import ORDERS, USER, Database  # noqa: E402
from loadGenerator import LoadGenerator, write_targets  # noqa: E402
from processes import Children, ProcessError, raise_on_termination_signals  # noqa: E402


def _jmh_configs():
    """The JMH benchmarks' configuration table (benchmarks/jmh/run.py CONFIGS)."""
    spec = importlib.util.spec_from_file_location(
        "jmh_run", os.path.join(ROOT, "benchmarks", "jmh", "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CONFIGS


CONFIGS = _jmh_configs()

DEFAULT_CONFIGS = ["none", "empty_callbacks", "vtctx", "vtctx_shim", "identity_shim",
                   "vtctx_shim_profile", "vtctx_shim_syscalls"]
# With one carrier the readers are left out: they sample or trace the process, not the carriers.
ONE_CARRIER_CONFIGS = ["none", "empty_callbacks", "vtctx", "vtctx_shim", "identity_shim"]
SERVICE_MAIN = "io.vtctx.bench.service.OrderService"
BACKEND_MAIN = "io.vtctx.bench.service.RateBackend"
HEAP = ["-Xms1g", "-Xmx1g"]
DB_CONNECTIONS = 10  # HikariCP's default pool size
SPANS_PER_REQUEST = 3  # server span, database child, backend child
CLK_TCK = os.sysconf("SC_CLK_TCK")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--java", action="append", required=True, metavar="LABEL=JAVA",
                   help="a JDK to measure, e.g. 25=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java")
    p.add_argument("--backend-java", required=True)
    for flag in ("service-dir", "shim-jar", "agent", "empty-agent", "reader", "vegeta", "out"):
        p.add_argument(f"--{flag}", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--configs", default=",".join(DEFAULT_CONFIGS))
    p.add_argument("--carriers", default="default,1",
                   help="carrier counts: default (one per CPU) and/or numbers")
    p.add_argument("--configs-fixed-carriers", default=",".join(ONE_CARRIER_CONFIGS),
                   help="the configurations run with a numbered carrier count")
    p.add_argument("--warmup", type=float, default=12, help="seconds at saturation, not measured")
    p.add_argument("--saturation-seconds", type=float, default=5)
    p.add_argument("--fixed-seconds", type=float, default=8)
    p.add_argument("--workers", type=int, default=32, help="connections at saturation")
    p.add_argument("--load", type=float, default=0.5,
                   help="fixed rate as a fraction of the calibrated saturation throughput")
    p.add_argument("--rate", type=int, help="fixed rate for every variant (no calibration)")
    p.add_argument("--smoke", action="store_true",
                   help="pipeline check: one round of short phases at 100/s; every configuration "
                        "on the first JDK with the default carriers, vtctx_shim and identity_shim "
                        "(the agent's two channels) on the others with one carrier")
    args = p.parse_args()
    if args.smoke:
        args.rounds, args.warmup, args.saturation_seconds, args.fixed_seconds = 1, 1.5, 1.5, 1.5
        args.workers, args.rate = 8, args.rate or 100
    return args


def matrix(args, configs):
    """[(jdk label, java, carriers, [configs])]: the variants and what each runs."""
    jdks = [j.split("=", 1) for j in args.java]
    if args.smoke:
        return ([(jdks[0][0], jdks[0][1], "default", configs)] +
                [(label, java, "1", [c for c in ("vtctx_shim", "identity_shim")
                                     if c in configs])
                 for label, java in jdks[1:]])
    numbered = [c for c in args.configs_fixed_carriers.split(",") if c in configs]
    return [(label, java, carriers, configs if carriers == "default" else numbered)
            for label, java in jdks for carriers in args.carriers.split(",")]


def say(text):
    print(f"measureService: {text}", file=sys.stderr, flush=True)


def cpu_seconds(pid):
    """utime + stime of the whole process (every thread: carriers, GC, JIT, the server's own)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def java_version(java):
    out = subprocess.run([java, "-XshowSettings:properties", "-version"], capture_output=True,
                         text=True).stderr
    return next((l.split("=", 1)[1].strip() for l in out.splitlines()
                 if l.strip().startswith("java.runtime.version =")), "unknown")


class Bench:
    def __init__(self, args, children):
        self.args, self.children = args, children
        self.classpath = ":".join([os.path.join(args.service_dir, "vtctx-service.jar"),
                                   os.path.join(args.service_dir, "lib", "*"), args.shim_jar])
        self.load = None  # set once the database and the backend run
        self.backend_uri = None
        self.jdbc_url = None

    def start_shared(self):
        """PostgreSQL and the rate backend, shared by every run (not measured)."""
        db = Database(os.path.join(self.args.out, "postgres"), self.children)
        db.start()
        self.jdbc_url = db.jdbc_url()
        backend = self.children.start(
            "rate backend", [self.args.backend_java, "-Xms256m", "-Xmx256m", "-cp",
                             self.classpath, BACKEND_MAIN],
            os.path.join(self.args.out, "backend.log"), stdin=True)
        info = json.loads(backend.wait_for(lambda l: '"listening"' in str(l), 120,
                                           "the rate backend to listen"))
        self.backend_uri = f"http://127.0.0.1:{info['port']}"
        say(f"PostgreSQL at {self.jdbc_url}, rate backend at {self.backend_uri}")

    def service_argv(self, java, carriers, config, stats_path):
        agent, options, shim, _ = CONFIGS[config]
        argv = [java]
        if agent == "empty":
            argv.append(f"-agentpath:{self.args.empty_agent}={options}")
        elif agent == "vtctx":
            argv.append(f"-agentpath:{self.args.agent}={options},stats={stats_path}")
        argv += [f"-Dvtctx.bench.config={config}",
                 f"-Dvtctx.bench.expectVtctx={str(agent == 'vtctx').lower()}",
                 f"-Dvtctx.bench.shim={str(shim).lower()}", *HEAP]
        if carriers != "default":
            argv.append(f"-Djdk.virtualThreadScheduler.parallelism={carriers}")
        return argv + ["-cp", self.classpath, SERVICE_MAIN, self.jdbc_url, USER,
                       str(DB_CONNECTIONS), self.backend_uri]

    def start_reader(self, mode, pid, run_dir):
        argv = [self.args.reader, mode, "--pid", str(pid), "--bpf-stats"]
        argv += ["--hz", "99"] if mode == "profile" else ["--syscall", "write"]
        reader = self.children.start(f"vtctx-reader {mode}", argv,
                                     os.path.join(run_dir, "reader.log"),
                                     stdout_path=os.devnull)
        reader.wait_for(lambda l: l == ("stderr", "vtctx-reader: attached"), 60,
                        f"vtctx-reader {mode} to attach")
        return reader

    @staticmethod
    def stop_reader(reader):
        reader.signal(signal.SIGTERM)
        code = reader.wait_exit(30)
        summary = next((l for l in reader.stderr_lines
                        if l.startswith("vtctx-reader: summary:")), None)
        if code != 0 or summary is None:
            raise ProcessError(f"{reader.name} exited {code} without a summary; see "
                            f"{reader.log.name}")
        reader.stop()
        return dict(w.split("=", 1) for w in summary.split() if "=" in w)

    def measure(self, phase, pid, run_dir, rate=None):
        seconds = self.args.fixed_seconds if rate else self.args.saturation_seconds
        before = cpu_seconds(pid)
        report = self.load_generator(run_dir).attack(phase, seconds, rate=rate,
                                                     workers=self.args.workers)
        cpu = cpu_seconds(pid) - before
        requests = report["requests"]
        ok = round(requests * report["success"])
        if ok != requests:
            # Timeouts past the 10 s limit: the service fell behind (the machine's other load, or
            # a fixed rate above this configuration's saturation). Reported with the run; a smoke
            # run, at 100 requests/s, must have none.
            what = (f"{phase}: {requests - ok} of {requests} requests failed "
                    f"({report['status_codes']}, {report['errors'][:2]}); see {run_dir}")
            if self.args.smoke or ok == 0:
                raise ProcessError(what)
            say(what)
        lat = report["latencies"]
        if cpu <= 0 or not 0 < lat["50th"] <= lat["99th"]:
            raise ProcessError(f"{phase}: implausible numbers (CPU {cpu} s, p50 {lat['50th']} ns, "
                            f"p99 {lat['99th']} ns); see {run_dir}")
        return {"requests": ok, "failed": requests - ok, "seconds": seconds,
                "throughput": report["throughput"],
                "cpu_s": cpu, "cpu_us_per_request": cpu * 1e6 / ok,
                "p50_ms": lat["50th"] / 1e6, "p90_ms": lat["90th"] / 1e6,
                "p99_ms": lat["99th"] / 1e6, "max_ms": lat["max"] / 1e6,
                "mean_ms": lat["mean"] / 1e6}

    def load_generator(self, run_dir):
        return LoadGenerator(self.args.vegeta, os.path.join(run_dir, "targets.txt"), run_dir)

    def run(self, name, java, carriers, config, rate):
        """One fresh service JVM: warm-up, saturation, then (if rate) the fixed rate."""
        run_dir = os.path.join(self.args.out, "runs", name)
        os.makedirs(run_dir, exist_ok=True)
        stats_path = os.path.join(run_dir, "vtctx-stats.json")
        started = time.time()
        service = self.children.start("service", self.service_argv(java, carriers, config,
                                                                   stats_path),
                                      os.path.join(run_dir, "service.log"), stdin=True)
        info = json.loads(service.wait_for(lambda l: '"listening"' in str(l), 180,
                                           f"the service ({name}) to listen"))
        pid = info["pid"]
        write_targets(os.path.join(run_dir, "targets.txt"), info["port"], ORDERS)
        reader_mode = CONFIGS[config][3]
        reader = self.start_reader(reader_mode, pid, run_dir) if reader_mode else None
        gen = self.load_generator(run_dir)
        gen.attack("warmup", self.args.warmup, workers=self.args.workers)
        result = {"run": name, "config": config, "carriers": info["carriers"],
                  "carriers_option": carriers, "java": info["java"],
                  "saturation": self.measure("saturation", pid, run_dir)}
        if rate:
            result["rate"] = rate
            result["fixed"] = self.measure("fixed", pid, run_dir, rate=rate)
        service.send("stats")
        stats = json.loads(service.wait_for(lambda l: '"stats"' in str(l), 60,
                                            "the service's counts"))
        reports = [json.load(open(os.path.join(run_dir, f"{p}.json")))
                   for p in ("warmup", "saturation", "fixed") if p != "fixed" or rate]
        sent = sum(r["requests"] for r in reports)
        ok = sum(round(r["requests"] * r["success"]) for r in reports)
        if not ok <= stats["answered"] <= sent:
            raise ProcessError(f"{name}: the service answered {stats['answered']} requests, vegeta "
                            f"sent {sent} and got {ok} answers")
        # The service's own check span (BenchConfig, shim configurations) comes on top.
        if not 0 <= stats["spans_ended"] - SPANS_PER_REQUEST * stats["answered"] <= 1:
            raise ProcessError(f"{name}: {stats['spans_ended']} spans ended for "
                            f"{stats['answered']} requests ({SPANS_PER_REQUEST} each expected)")
        if stats["spans_exported"] != stats["spans_ended"]:
            raise ProcessError(f"{name}: the SDK exported {stats['spans_exported']} of "
                            f"{stats['spans_ended']} ended spans (its batch queue overflowed)")
        result.update(answered=stats["answered"], spans_ended=stats["spans_ended"],
                      spans_exported=stats["spans_exported"])
        if reader:
            result["reader"] = self.stop_reader(reader)
        service.send("quit")
        if service.wait_exit(60) != 0:
            raise ProcessError(f"{name}: the service exited {service.proc.returncode}; see "
                            f"{service.log.name}")
        service.stop()
        if CONFIGS[config][0] == "vtctx":
            agent = json.load(open(stats_path))
            result["agent"] = {k: agent[k] for k in ("mounts", "vthread_ends", "records_indexed",
                                                     "records_unavailable")}
            # Threads that published through the shim (their first publish enters them in the
            # thread index, in either channel).
            result["publishing_threads_per_request"] = agent["records_indexed"] / stats["answered"]
            if "channel=identity" in CONFIGS[config][1]:
                # No JVMTI: no events to count. With the shim, threads publish (the server's
                # connection threads, which serve many requests each).
                shim = CONFIGS[config][2]
                if agent["mounts"] != 0 or (agent["records_indexed"] > 0) != shim:
                    raise ProcessError(f"{name}: channel=identity counted {agent['mounts']} "
                                    f"mounts and {agent['records_indexed']} publishing threads "
                                    f"for {stats['answered']} requests")
            else:
                result["mounts_per_request"] = agent["mounts"] / stats["answered"]
                result["vthreads_per_request"] = agent["vthread_ends"] / stats["answered"]
                if agent["mounts"] < stats["answered"]:
                    raise ProcessError(f"{name}: vtctx saw {agent['mounts']} mounts for "
                                    f"{stats['answered']} requests (each blocks at least once)")
        result["wall_s"] = time.time() - started
        result["loadavg"] = open("/proc/loadavg").read().split()[0]
        return result


def main():
    args = parse_args()
    raise_on_termination_signals()
    os.makedirs(args.out, exist_ok=True)
    configs = args.configs.split(",")
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown:
        sys.exit(f"measureService: unknown configuration(s) {unknown}; known: {list(CONFIGS)}")
    if "none" not in configs:
        sys.exit("measureService: --configs must include none (the baseline)")
    if os.geteuid() != 0 and any(CONFIGS[c][3] for c in configs):
        say("not root, skipping the reader configurations (BPF needs root)")
        configs = [c for c in configs if not CONFIGS[c][3]]
    jdks = [j.split("=", 1) for j in args.java]
    variants = matrix(args, configs)
    children = Children()
    started = time.monotonic()
    try:
        bench = Bench(args, children)
        bench.start_shared()
        rates = {}
        for label, java, carriers, _ in variants:
            key = f"{label}/{carriers}"
            if args.rate:
                rates[key] = args.rate
                continue
            cal = bench.run(f"calibrate-{label}-c{carriers}", java, carriers, "none", None)
            rates[key] = max(10, int(round(args.load * cal["saturation"]["throughput"], -1)))
            say(f"{key}: saturation {cal['saturation']['throughput']:.0f}/s without an agent, "
                f"fixed rate {rates[key]}/s")
        with open(os.path.join(args.out, "calibration.json"), "w") as f:
            json.dump({"rates": rates, "load": args.load, "explicit_rate": args.rate,
                       "java": {label: java_version(java) for label, java in jdks}}, f)
        with open(os.path.join(args.out, "runs.jsonl"), "a") as results:
            for r in range(1, args.rounds + 1):
                order = [(label, java, carriers, c) for label, java, carriers, cs in variants
                         for c in cs]
                random.shuffle(order)
                for label, java, carriers, config in order:
                    name = f"r{r}-{label}-c{carriers}-{config}"
                    result = bench.run(name, java, carriers, config, rates[f"{label}/{carriers}"])
                    result.update(round=r, jdk=label)
                    results.write(json.dumps(result) + "\n")
                    results.flush()
                    fixed = result["fixed"]
                    say(f"round {r}/{args.rounds} {label} carriers={carriers} {config}: "
                        f"{fixed['cpu_us_per_request']:.0f} us CPU/request, "
                        f"p99 {fixed['p99_ms']:.1f} ms at {result['rate']}/s, "
                        f"{result['saturation']['throughput']:.0f}/s max "
                        f"(total {time.monotonic() - started:.0f} s)")
    except ProcessError as e:
        sys.exit(f"measureService: {e}")
    finally:
        children.stop_all()


if __name__ == "__main__":
    main()
