#!/usr/bin/env python3
"""vtctx-reader names record attributes of virtual threads through the real agent's process
context. The JVM (VtAttrs) starts with attribute_keys=http.route|user.id and service_name=...;
after the reader attached, more keys are registered by several threads at once while thousands of
virtual threads set three attributes per marker write and hop between carriers. `syscalls` must
report, for every marker, exactly the attribute names and values its virtual thread set (two keys
known at attach, one only registered later: the reader re-reads the key map lazily), and `resolve`
must print the process context the agent published.

  jvmAttrTest.py --reader R --java J --agent libvtctx.so --classes DIR [--threads N]
                 [--iterations I] [--late-keys L] [--wrong-expectation]
"""
import os
import re
import sys

from vtctxtest import (JvmTarget, check, json_lines, markers_under_syscalls, require_root,
                       required_args_parser, run_reader)
from jvmTest import context_matches, match_markers

SERVICE = "vtctx-attr-test"
UUID_V4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def expected_attributes(marker, iterations, late_keys):
    index = marker // iterations
    return {
        "http.route": f'/api/{index % 7}/"q"\\{marker}',
        "user.id": f"us\u00e9r-{index}",
        f"late.{marker % late_keys}": f"v{marker}",
    }


def resolve_context(reader, pid):
    code, out, err = run_reader(reader, ["resolve", "--pid", str(pid), "--format", "json"])
    check(code == 0, f"resolve exited {code}: {err.strip()}")
    check(not err.strip(), f"resolve complained on stderr: {err.strip()}")
    objects = json_lines(out)
    check(objects[0].get("library", "").endswith("/libvtctx.so"), "module object must come first")
    contexts = [o["process_context"] for o in objects if "process_context" in o]
    check(len(contexts) == 1, f"want one process_context object: {contexts}")
    return contexts[0]


def check_context(ctx, key_map):
    check(ctx["status"] == "ok", f"process context not ok: {ctx}")
    check(ctx["mapping"] in ("/memfd:OTEL_CTX (deleted)", "/memfd:OTEL_CTX", "[anon:OTEL_CTX]"),
          f"mapping {ctx['mapping']}")
    resource = ctx["resource"]
    check(resource.get("service.name") == SERVICE, f"service.name {resource.get('service.name')}")
    check(resource.get("telemetry.sdk.language") == "java", f"resource {resource}")
    check(UUID_V4.match(resource.get("service.instance.id", "")), f"instance id {resource}")
    check(ctx["schema_version"] == "tlsdesc_v1_dev" and ctx["schema_supported"] is True,
          f"schema {ctx}")
    check(ctx["attribute_key_map"] == key_map,
          f"key map {ctx['attribute_key_map']}, want {key_map}")


def main():
    parser = required_args_parser("reader", "java", "agent", "classes")
    parser.add_argument("--threads", type=int, default=3000)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--late-keys", type=int, default=12)
    parser.add_argument("--wrong-expectation", action="store_true",
                        help="negative control of the checker: expect a wrong value for one "
                             "marker; the test must then fail")
    args = parser.parse_args()
    require_root()

    options = f"service_name={SERVICE},attribute_keys=http.route|user.id,record_size=256"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    with JvmTarget([args.java, f"-agentpath:{args.agent}={options}", "-cp", args.classes,
                    "VtAttrs", str(args.threads), str(args.iterations), str(args.late_keys)],
                   env=env) as jvm:
        ready = jvm.wait_json()
        pid, base = ready["pid"], ready["base"]
        check(ready["record_size"] == 256, f"record_size {ready['record_size']}")
        check_context(resolve_context(args.reader, pid), ["http.route", "user.id"])
        code, text, err = run_reader(args.reader, ["resolve", "--pid", str(pid)])
        check(code == 0, f"resolve (text) exited {code}: {err.strip()}")
        for needle in (f'resource service.name="{SERVICE}"',
                       'threadlocal.schema_version="tlsdesc_v1_dev"',
                       'threadlocal.attribute_key_map: 0="http.route" 1="user.id"'):
            check(needle in text, f"resolve text lacks {needle!r}:\n{text}")
        print("resolve ok: the process context the agent published at load")

        done, events, summary = markers_under_syscalls(args.reader, jvm, pid)
        keys = done["keys"]
        key_map = sorted(keys, key=keys.get)
        check([keys[k] for k in key_map] == list(range(len(keys))),
              f"indexes the JVM got are not 0..{len(keys) - 1}: {keys}")
        check_context(resolve_context(args.reader, pid), key_map)
        print(f"resolve ok after the run: key map {key_map}")

    total = done["markers"]
    check(total == args.threads * args.iterations, f"JVM reports {total} markers")

    def matches(marker, e, iterations):
        want = expected_attributes(marker, iterations, args.late_keys)
        if args.wrong_expectation and marker == total // 2:
            want["user.id"] += "-wrong"
        want_attrs = {str(keys[name]): value for name, value in want.items()}
        ids_ok, _ = context_matches(marker, e, iterations)
        return e.get("attributes") == want and e.get("attrs") == want_attrs and ids_ok, want

    seen, wrong, carriers = match_markers(events, base, total, args.iterations, matches)
    for marker, e, want in wrong[:10]:
        print(f"WRONG marker {marker}: got {e}, want attributes {want}", file=sys.stderr)
    moved = sum(1 for tids in carriers.values() if len(tids) > 1)
    all_carriers = set().union(*carriers.values()) if carriers else set()
    print(f"markers: {total}, seen {len(seen)}, wrong {len(wrong)}; {len(all_carriers)} carriers, "
          f"{moved} virtual threads wrote from more than one; reader summary {summary}")
    check(summary.get("dropped") == "0", "the reader dropped events")
    check(len(seen) == total, f"{total - len(seen)} marker writes missing")
    check(not wrong, f"{len(wrong)} markers with wrong attributes or context")
    check(moved > 0, "no virtual thread changed carrier: the test proved nothing about remounts")
    check(int(summary.get("pctx_reads", "0")) >= 2,
          f"the key map was never re-read, yet late keys were named: {summary}")
    print("PASS")


if __name__ == "__main__":
    main()
