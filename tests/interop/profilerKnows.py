#!/usr/bin/env python3
"""Does a running OpenTelemetry eBPF profiler know libvtctx.so's code in process PID?

usage: profilerKnows.py PID [ATTACH_EPOCH_S PROFILER_LOG]

The profiler keeps the code mappings it has read from /proc/<pid>/maps in the BPF LPM trie
pid_page_to_mapping_info (key: prefix length, pid big-endian u32, page big-endian u64). libvtctx.so's
executable mapping is in it once the profiler resynchronised the process after the agent was loaded
(docs/interop.md, "A late-attached writer"). Prints "KNOWN yes|no ..." (read with bpftool) and,
given the attach time and the profiler's log, how long after the attach started the profiler
resolved the thread-context TLS variable (PR #1229's "PID <pid> tls offset" or "PID <pid> dynamic
TLS" line; main has no such reader, so nothing is printed for it).
"""
import datetime
import json
import re
import subprocess
import sys


def libvtctx_text(pid):
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        if len(f) >= 6 and f[1].startswith("r-x") and f[5].endswith("/libvtctx.so"):
            return int(f[0].split("-")[0], 16)
    return None


def bpftool(*args):
    return json.loads(subprocess.run(["bpftool", "-j", *args], check=True, capture_output=True,
                                     text=True).stdout)


def tls_resolved_after(pid, attach, log):
    for line in open(log, errors="replace"):
        m = re.match(r'time=(\S+) level=INFO msg="PID (\d+) (tls offset|dynamic TLS)', line)
        if m and int(m.group(2)) == pid:
            t = datetime.datetime.fromisoformat(m.group(1).replace("Z", "+00:00")).timestamp()
            return f", TLS resolved {t - attach:.2f} s after the attach started"
    return ""


def main():
    pid = int(sys.argv[1])
    resync = tls_resolved_after(pid, float(sys.argv[2]), sys.argv[3]) if len(sys.argv) > 3 else ""
    start = libvtctx_text(pid)
    if start is None:
        print(f"KNOWN no: libvtctx.so is not mapped{resync}")
        return
    # Map names are truncated to 15 characters in the kernel.
    maps = [m["id"] for m in bpftool("map", "show") if m.get("name") == "pid_page_to_map"]
    if len(maps) != 1:
        print(f"KNOWN no: {len(maps)} pid_page_to_mapping_info maps (one profiler expected){resync}")
        return
    entries = hits = 0
    for e in bpftool("map", "dump", "id", str(maps[0])):
        key = bytes(int(b, 16) for b in e["key"])
        prefix_len = int.from_bytes(key[0:4], "little")
        if int.from_bytes(key[4:8], "big") != pid:
            continue
        entries += 1
        page_bits = prefix_len - 32  # the rest of the prefix covers the page
        if page_bits <= 0:
            continue  # the per-process marker entry
        mask = ((1 << 64) - 1) ^ ((1 << (64 - page_bits)) - 1)
        hits += (start & mask) == int.from_bytes(key[8:16], "big")
    print(f"KNOWN {'yes' if hits else 'no'}: {entries} entries for pid {pid}, "
          f"libvtctx.so text at 0x{start:x} {'covered' if hits else 'not covered'}{resync}")


if __name__ == "__main__":
    main()
