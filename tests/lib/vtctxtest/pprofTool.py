"""google/pprof (installed by scripts/install-deps.sh) as the tests read the reader's pprof output:
never our own decoder."""
import re
import subprocess

from vtctxtest.checks import check

_UNITS_NS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9, "mins": 60 * 10**9,
             "hrs": 3600 * 10**9}


def pprof(tool, *args):
    """pprof's stdout for `args`; a failure fails the test."""
    proc = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    check(proc.returncode == 0, f"pprof {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def parse_traces(text):
    """`pprof -traces` blocks: [(labels dict, cpu string, frames innermost first)]."""
    samples = []
    for block in text.split("-----------+-------------------------------------------------------"):
        labels, frames, value = {}, [], None
        for line in block.splitlines():
            m = re.match(r"^\s*([\w.]+):\s+(.*)$", line)
            if m and not frames and value is None and not line.startswith("     "):
                labels[m.group(1)] = m.group(2).strip()
                continue
            m = re.match(r"^\s+(\S+)\s{3}(.*)$", line)
            if m and value is None and re.match(r"^[\d.]+\w*s$", m.group(1)):
                value = m.group(1)
                frames.append(m.group(2).strip())
            elif value is not None and line.strip():
                frames.append(line.strip())
        if value is not None:
            samples.append((labels, value, frames))
    return samples


def duration_ns(value):
    """A duration as pprof prints it ("10.10ms", "1.20s") in nanoseconds."""
    m = re.match(r"^([\d.]+)(\D+)$", value)
    check(m is not None and m.group(2) in _UNITS_NS, f"not a pprof duration: {value!r}")
    return float(m.group(1)) * _UNITS_NS[m.group(2)]
