#!/usr/bin/env python3
"""vtctx-reader against the real agent in a JVM: virtual threads write markers while they hop
between carriers; `syscalls` must attribute every marker write to the context its virtual thread
published for it. Zero misattributions, zero missing markers, zero drops.

  jvmTest.py --reader R --java J --agent libvtctx.so --classes DIR [--threads N] [--iterations I]
"""
import sys

from vtctxtest import (JvmTarget, check, json_lines, markers_under_syscalls, require_root,
                       required_args_parser, run_reader)


def expected_context(marker, iterations):
    index = marker // iterations
    return {
        "trace_id": f"76746374{index:08x}{marker:016x}",
        "span_id": f"{marker ^ 0x5a5a5a5a5a5a5a5a:016x}",
        "trace_flags": "01",
        "valid": 1,
    }


def context_matches(marker, event, iterations):
    """(whether `event` carries marker's context, that context)."""
    want = expected_context(marker, iterations)
    return all(event[k] == v for k, v in want.items()), want


def match_markers(events, base, total, iterations, matches=context_matches):
    """Maps the marker writes among `events` (syscalls json; a write of base + m bytes is marker
    m of virtual thread m // iterations) to their markers and checks each with
    matches(marker, event, iterations) -> (ok, expected). Returns ({marker: event},
    [(marker, event, expected) not ok], {virtual thread: tids}); fails on a marker reported
    twice."""
    seen = {}
    carriers = {}
    wrong = []
    for e in events:
        marker = e["count"] - base
        if not 0 <= marker < total:
            continue
        check(marker not in seen, f"marker {marker} reported twice: {seen.get(marker)} / {e}")
        seen[marker] = e
        ok, want = matches(marker, e, iterations)
        if not ok:
            wrong.append((marker, e, want))
        carriers.setdefault(marker // iterations, set()).add(e["tid"])
    return seen, wrong, carriers


def main():
    parser = required_args_parser("reader", "java", "agent", "classes")
    parser.add_argument("--threads", type=int, default=4000)
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--agent-options", default="")
    parser.add_argument("--expect-misattribution", action="store_true",
                        help="negative control: with a deliberately faulty agent, the test must "
                             "see misattributed markers")
    args = parser.parse_args()
    require_root()

    agent = f"-agentpath:{args.agent}" + (f"={args.agent_options}" if args.agent_options else "")
    jvm = JvmTarget([args.java, agent, "-cp", args.classes, "VtMarkers", str(args.threads),
                     str(args.iterations)])
    with jvm:
        ready = jvm.wait_json()
        pid, base = ready["pid"], ready["base"]

        code, text, err = run_reader(args.reader, ["resolve", "--pid", str(pid), "--format",
                                                   "json"])
        check(code == 0, f"resolve on the JVM exited {code}: {err.strip()}")
        objects = json_lines(text)
        check(objects[0]["library"].endswith("/libvtctx.so"),
              f"resolved library {objects[0]['library']}, expected libvtctx.so")
        check(objects[0]["access_model"] == "tlsdesc",
              f"agent access model {objects[0]['access_model']}, expected tlsdesc")
        threads = [o for o in objects if "tid" in o]
        check(threads, "resolve listed no JVM thread")
        with_record = [t for t in threads if t["record"]]
        if "channel=identity" in args.agent_options:
            # No thread published yet: none has a record, each Java thread names its Java thread.
            channel = [o["channel"] for o in objects if "channel" in o]
            check(channel and channel[0].startswith("identity channel: "),
                  f"resolve followed {channel}, not the identity channel")
            check(any(t.get("java_thread_id") for t in threads),
                  "resolve named no thread's Java thread")
        else:
            check(with_record, "no JVM thread publishes a record (agent not publishing?)")
        print(f"resolve ok: {objects[0]['library']} tls={objects[0]['tls']}, {len(threads)} "
              f"threads, {len(with_record)} with a record")

        done, events, summary = markers_under_syscalls(args.reader, jvm, pid)

    total = done["markers"]
    check(total == args.threads * args.iterations, f"JVM reports {total} markers")
    seen, wrong, carriers = match_markers(events, base, total, args.iterations)
    missing = total - len(seen)
    for marker, e, want in wrong[:10]:
        print(f"MISATTRIBUTED marker {marker}: got {e}, want {want}", file=sys.stderr)
    all_carriers = set().union(*carriers.values()) if carriers else set()
    moved = sum(1 for tids in carriers.values() if len(tids) > 1)
    print(f"markers: {total}, seen {len(seen)}, missing {missing}, misattributed {len(wrong)}; "
          f"{len(all_carriers)} carrier threads, {moved} virtual threads wrote from more than one; "
          f"reader summary {summary}")
    check(summary.get("dropped") == "0", "the reader dropped events")
    check(missing == 0, f"{missing} marker writes missing")
    if args.expect_misattribution:
        check(wrong, "the faulty agent went unnoticed: no marker was misattributed")
        print("PASS (the fault was detected)")
        return
    check(not wrong, f"{len(wrong)} marker writes misattributed")
    check(len(all_carriers) >= 2, "all markers came from one carrier: the test proved nothing")
    print("PASS")


if __name__ == "__main__":
    main()
