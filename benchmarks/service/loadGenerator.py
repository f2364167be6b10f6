"""The load generator: vegeta (https://github.com/tsenart/vegeta, installed from the Go module
proxy by scripts/install-deps.sh), in its own process.

Two modes, both over HTTP/1.1 keep-alive connections to the same targets:
* fixed rate (open model): vegeta sends requests on a clock at `rate` per second whatever the
  answers do (more workers if needed), so a slow answer delays no later request and latency
  percentiles are not flattered by coordinated omission;
* saturation (closed model): `workers` connections each send their next request as soon as the
  previous answer arrives; the completed requests per second are the maximum throughput.
Each attack is summarised by `vegeta report -type=json` into DIR/NAME.json (the raw results are
deleted after that).
"""
import json
import os
import random
import subprocess

from processes import DemoError

TIMEOUT = "10s"


def write_targets(path, port, orders, count=2000, seed=1):
    """`count` GETs of random existing orders (fixed seed: every run asks the same)."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(count):
            f.write(f"GET http://127.0.0.1:{port}/orders/{rng.randint(1, orders)}"
                    f"?currency=EUR\n")


class LoadGenerator:
    def __init__(self, vegeta, targets, out_dir):
        self.vegeta, self.targets, self.out_dir = vegeta, targets, out_dir

    def attack(self, name, seconds, rate=None, workers=None):
        """Runs one attack to completion and returns vegeta's JSON report (latencies in ns).
        rate: requests per second (fixed rate); None: saturation with `workers` connections."""
        raw = os.path.join(self.out_dir, name + ".bin")
        argv = [self.vegeta, "attack", "-targets", self.targets, "-duration", f"{seconds}s",
                "-timeout", TIMEOUT, "-keepalive=true", "-max-body", "0", "-output", raw]
        if rate is not None:
            argv += ["-rate", f"{rate}/1s"]
        else:
            argv += ["-rate", "0", "-workers", str(workers), "-max-workers", str(workers)]
        run = subprocess.run(argv, capture_output=True, text=True)
        if run.returncode != 0:
            raise DemoError(f"vegeta attack {name} failed (exit {run.returncode}): "
                            f"{run.stderr.strip()[-400:]}")
        report = subprocess.run([self.vegeta, "report", "-type=json", raw],
                                capture_output=True, text=True)
        if report.returncode != 0:
            raise DemoError(f"vegeta report {name} failed: {report.stderr.strip()[-400:]}")
        os.remove(raw)  # tens of MB per run; the report is what is kept
        result = json.loads(report.stdout)
        with open(os.path.join(self.out_dir, name + ".json"), "w") as f:
            json.dump(result, f, indent=1)
        return result
