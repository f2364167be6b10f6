#!/usr/bin/env python3
"""Reads the OTEP 4719 process context of a live JVM running the vtctx agent, from another process,
the way external readers do, and checks every field.

  pctxCheck.py --java J --jcmd JCMD --agent LIB --classes DIR --protoc PROTOC --proto FILE
               --version PROJECT_VERSION SCENARIO

The driver starts the JVM (io.vtctx.pctx.PctxTarget) itself, so it may read /proc/<pid>/mem
under Yama ptrace_scope=1. It finds the mapping in /proc/<pid>/maps, reads the 32-byte header and
the payload from /proc/<pid>/mem following the reader protocol (timestamp, header, payload,
timestamp again; retry on 0 or change), and decodes the payload with a real protobuf runtime
(python3-protobuf) from a .proto compiled here at test time. The encoding must also be canonical:
re-serialising the decoded message gives the same bytes. The extra attribute vtctx.version and the
agent's `active` log line must both carry the project version.

Scenarios: option, property, env, attributes, default, bad-attributes, late-attach, concurrent.
Exit 0 and a last line "PASS" only if every check held.
"""

import argparse
import os
import queue
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time

from vtctxtest.processContextProto import (  # noqa: E402
    HEADER, KEY_MAP_KEY, MAPPING_NAMES, SCHEMA_VERSION_KEY, SIGNATURE, VERSION, compile_proto, read)

UUID_V4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
TIMEOUT = 60  # seconds for any single step
vtctx_version = None  # --version: the project version the agent must publish and log

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return ok


def boottime_ns():
    return time.clock_gettime_ns(time.CLOCK_BOOTTIME)


class Target:
    """The JVM under test, driven one command line at a time."""

    def __init__(self, args, work, agent_options=None, env=None, jvm_flags=()):
        self.args = args
        self.stderr_path = os.path.join(work, "stderr.%d" % id(self))
        cmd = [args.java]
        if agent_options is not None:
            cmd.append("-agentpath:%s=%s" % (args.agent, agent_options))
        cmd += list(jvm_flags) + ["-cp", args.classes, "io.vtctx.pctx.PctxTarget"]
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
        full_env.update(env or {})
        self.started_at = boottime_ns()
        self.stderr = open(self.stderr_path, "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, env=full_env, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        ready = self._line()
        if not ready.startswith("READY "):
            raise RuntimeError("target did not start: %r\n%s" % (ready, self.log()))
        self.pid = int(ready.split()[1])

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _line(self, timeout=TIMEOUT):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise RuntimeError("no answer from the target within %d s" % timeout)
        if line is None:
            raise RuntimeError("target exited (%s)\n%s" % (self.proc.wait(), self.log()))
        return line

    def ask(self, command, timeout=TIMEOUT):
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._line(timeout)

    def log(self):
        self.stderr.flush()
        with open(self.stderr_path) as f:
            return f.read()

    def close(self):
        try:
            if self.proc.poll() is None:
                check(self.ask("exit") == "BYE", "target did not acknowledge exit")
                check(self.proc.wait(timeout=TIMEOUT) == 0, "target exit code")
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.stderr.close()


def otel_mappings(pid):
    found = []
    with open("/proc/%d/maps" % pid) as maps:
        for line in maps:
            parts = line.split(None, 5)
            name = parts[5].strip() if len(parts) > 5 else ""
            if "OTEL_CTX" in name:
                start, end = (int(x, 16) for x in parts[0].split("-"))
                found.append((start, end, parts[1], name, line.strip()))
    return found


class Memory:
    def __init__(self, pid):
        self.fd = os.open("/proc/%d/mem" % pid, os.O_RDONLY)

    def read(self, addr, size):
        data = os.pread(self.fd, size, addr)
        if len(data) != size:
            raise OSError("short read at 0x%x" % addr)
        return data

    def close(self):
        os.close(self.fd)


def try_snapshot(mem, addr):
    """One attempt of the reader protocol: (published_at, header, payload) or None to retry."""
    published_at = struct.unpack("=Q", mem.read(addr + 16, 8))[0]
    if published_at == 0:
        return None
    header = HEADER.unpack(mem.read(addr, HEADER.size))
    size, pointer = header[2], header[4]
    if size == 0 or size > 65536:
        return None
    try:
        payload = mem.read(pointer, size)
    except OSError:
        payload = None  # judged after the timestamp check, like the eBPF profiler does
    if struct.unpack("=Q", mem.read(addr + 16, 8))[0] != published_at or payload is None:
        return None
    return published_at, header, payload


def snapshot(mem, addr):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        s = try_snapshot(mem, addr)
        if s:
            return s
    raise RuntimeError("no consistent snapshot within %d s" % TIMEOUT)


def decode(pb, payload):
    """Decodes with the protobuf runtime; returns (resource dict, schema, key map) or None."""
    try:
        reading = read(pb, payload)
    except Exception as e:  # DecodeError, invalid UTF-8, ...
        check(False, "payload does not decode: %s" % e)
        return None
    check(reading.message.SerializeToString() == payload,
          "re-encoding the decoded payload gives different bytes (non-canonical or unknown fields)")
    resource = {}
    for key, value in reading.resource:
        check(key not in resource, "duplicate resource key %r" % key)
        check(value.WhichOneof("value") == "string_value", "resource %r is not a string" % key)
        resource[key] = value.string_value
    writer_version = None
    writer = {}
    for kv in reading.message.extra_attributes:
        if kv.key in ("vtctx.version", "vtctx.load", "vtctx.options", "vtctx.channel",
                      "vtctx.identity.index", "vtctx.identity.layout", "vtctx.status",
                      "vtctx.status.layout"):
            check(kv.value.WhichOneof("value") == "string_value", "%s not a string" % kv.key)
            writer[kv.key] = kv.value.string_value
            if kv.key == "vtctx.version":
                writer_version = kv.value.string_value
        else:
            check(kv.key in (SCHEMA_VERSION_KEY, KEY_MAP_KEY),
                  "unexpected extra attribute %r" % kv.key)
    check(writer_version == vtctx_version,
          "vtctx.version is %r, the project's %r" % (writer_version, vtctx_version))
    check(writer.get("vtctx.load") in ("startup", "attached"),
          "vtctx.load is %r" % writer.get("vtctx.load"))
    check("vtctx.options" in writer and "report=" not in writer["vtctx.options"],
          "vtctx.options is %r" % writer.get("vtctx.options"))
    check(writer.get("vtctx.channel") in ("carrier", "identity"),
          "vtctx.channel is %r" % writer.get("vtctx.channel"))
    # The thread index is named where the agent keeps one: channel=identity, or thread_index=on.
    if (writer.get("vtctx.channel") == "identity"
            or "thread_index=on" in writer.get("vtctx.options", "")):
        check(re.fullmatch(r"0x[0-9a-f]+", writer.get("vtctx.identity.index", "")) is not None,
              "vtctx.identity.index is %r" % writer.get("vtctx.identity.index"))
        check(writer.get("vtctx.identity.layout") == "1",
              "vtctx.identity.layout is %r" % writer.get("vtctx.identity.layout"))
    else:
        check("vtctx.identity.index" not in writer and "vtctx.identity.layout" not in writer,
              "a thread index named with thread_index=off: %r" % writer)
    # The agent's status block, always (docs/protocol.md, "Agent status").
    check(re.fullmatch(r"0x[0-9a-f]+", writer.get("vtctx.status", "")) is not None,
          "vtctx.status is %r" % writer.get("vtctx.status"))
    check(writer.get("vtctx.status.layout") == "1",
          "vtctx.status.layout is %r" % writer.get("vtctx.status.layout"))
    check(reading.supported, "threadlocal.schema_version is %r" % reading.schema)
    check(reading.key_map == "ok", "threadlocal.attribute_key_map is %s" % reading.key_map)
    return resource, reading.schema, reading.keys if reading.key_map == "ok" else None


def read_context(pb, target, expect_mapping=True):
    """Checks the mapping and header of `target` and returns (decoded, snapshot)."""
    mappings = otel_mappings(target.pid)
    if not expect_mapping:
        check(not mappings, "an OTEL_CTX mapping exists before the agent loaded: %s" % mappings)
        return None, None
    if not check(len(mappings) == 1, "want exactly one OTEL_CTX mapping, got %s" % mappings):
        return None, None
    start, end, perms, name, line = mappings[0]
    print("maps:", line)
    check(name in MAPPING_NAMES, "mapping name %r is not one readers accept" % name)
    check("x" not in perms and perms.startswith("r"), "mapping permissions %r" % perms)
    check(end - start == os.sysconf("SC_PAGE_SIZE"), "mapping is not exactly one page")
    mem = Memory(target.pid)
    try:
        published_at, header, payload = snapshot(mem, start)
    finally:
        mem.close()
    signature, version, size, _, pointer = header
    check(signature == SIGNATURE, "signature %r" % signature)
    check(version == VERSION, "version %d" % version)
    check(0 < size <= 65536 and size == len(payload), "payload size %d" % size)
    check(target.started_at < published_at <= boottime_ns(),
          "published_at_ns %d is not CLOCK_BOOTTIME during the JVM's life" % published_at)
    check(not start <= pointer < end, "payload pointer inside the header page")
    return decode(pb, payload), (published_at, header, payload)


def check_resource(resource, expected):
    """`expected` maps keys to values; service.instance.id None means: a random UUID v4."""
    if resource is None:
        return
    expected = dict(expected)
    want_uuid = expected.get("service.instance.id") is None
    if want_uuid:
        expected.pop("service.instance.id", None)
        instance = resource.get("service.instance.id", "")
        check(UUID_V4.match(instance), "service.instance.id %r is not a UUID v4" % instance)
    got = {k: v for k, v in resource.items() if not (want_uuid and k == "service.instance.id")}
    check(got == expected, "resource attributes:\n  got  %s\n  want %s" % (got, expected))
    print("resource:", resource)


ATTRIBUTES = "deployment.environment.name=prod, team=a%2Cb,note=caf%C3%A9%20%2B%20cr%C3%A8me"
ATTRIBUTES_DECODED = {"deployment.environment.name": "prod", "team": "a,b",
                      "note": "caf\u00e9 + cr\u00e8me"}


def base_resource(name):
    return {"service.name": name, "service.instance.id": None, "telemetry.sdk.language": "java",
            **ATTRIBUTES_DECODED}


def scenario_startup(pb, args, work, options, env, flags, want_resource, want_keys):
    t = Target(args, work, options, env, flags)
    try:
        decoded, snap = read_context(pb, t)
        if decoded:
            check_resource(decoded[0], want_resource)
            check(decoded[2] == want_keys, "key map %s, want %s" % (decoded[2], want_keys))
        # Registering a key republishes with a strictly greater timestamp and an appended map.
        answer = t.ask("register extra.key %s" % (want_keys[0] if want_keys else "first"))
        n = len(want_keys)
        expect = "REGISTERED extra.key=%d %s=%d" % (n, want_keys[0], 0) if want_keys else \
            "REGISTERED extra.key=0 first=1"
        check(answer == expect, "register answered %r, want %r" % (answer, expect))
        decoded2, snap2 = read_context(pb, t)
        if decoded2 and snap:
            new_keys = want_keys + ["extra.key"] if want_keys else ["extra.key", "first"]
            check(decoded2[2] == new_keys, "key map after register: %s" % decoded2[2])
            check(snap2[0] > snap[0], "published_at_ns did not grow on update")
            check(decoded2[0] == decoded[0], "resource changed on a key update")
        print("agent:", t.log().strip())
        check("vtctx: active (startup, vtctx %s, " % vtctx_version in t.log(),
              "agent did not report active with the project version")
        return t.log()
    finally:
        t.close()


def run(args, work, pb):
    s = args.scenario
    everything = {"OTEL_SERVICE_NAME": "svc-env",
                  "OTEL_RESOURCE_ATTRIBUTES": ATTRIBUTES + ",service.name=svc-attributes"}
    if s == "option":
        scenario_startup(pb, args, work, "log=info,service_name=svc-option,attribute_keys=http.route|user.id",
                         everything, ["-Dotel.service.name=svc-property"],
                         base_resource("svc-option"), ["http.route", "user.id"])
    elif s == "property":
        scenario_startup(pb, args, work, "log=info", everything,
                         ["-Dotel.service.name=svc-property"], base_resource("svc-property"), [])
    elif s == "env":
        scenario_startup(pb, args, work, "log=info", everything, [], base_resource("svc-env"), [])
    elif s == "property-identity":
        # Without JVMTI the agent cannot read the JVM's properties at Agent_OnLoad: it publishes
        # from the environment, then republishes once its maintenance thread can ask the JVM.
        t = Target(args, work, "log=info,channel=identity", everything,
                   ["-Dotel.service.name=svc-property"])
        try:
            deadline = time.monotonic() + 20
            decoded = None
            while time.monotonic() < deadline:
                decoded, _ = read_context(pb, t)
                if decoded and decoded[0].get("service.name") == "svc-property":
                    break
                time.sleep(0.1)
            if check(decoded is not None, "no process context"):
                check_resource(decoded[0], base_resource("svc-property"))
            check("vtctx: active (startup, vtctx %s, identity channel" % vtctx_version in t.log(),
                  "agent did not report the identity channel active")
        finally:
            t.close()
    elif s == "attributes":
        # service.name and service.instance.id from the attributes (no explicit name is set); the
        # configured instance id wins over a random one, as in the OTel SDK.
        scenario_startup(pb, args, work, "log=info",
                         {"OTEL_RESOURCE_ATTRIBUTES": ATTRIBUTES + ",service.name=svc-attributes,"
                          "service.instance.id=configured-id,telemetry.sdk.language=go"},
                         [], {**base_resource("svc-attributes"),
                              "service.instance.id": "configured-id"}, [])
    elif s == "default":
        t = Target(args, work, "log=info", {}, [])
        try:
            decoded, _ = read_context(pb, t)
            if decoded:
                check_resource(decoded[0], {"service.name": "unknown_service:java",
                                            "service.instance.id": None,
                                            "telemetry.sdk.language": "java"})
                check(decoded[2] == [], "key map should be empty: %s" % decoded[2])
        finally:
            t.close()
        # Two processes never share an instance id.
        ids = []
        for _ in range(2):
            t = Target(args, work, "log=error", {}, [])
            try:
                decoded, _ = read_context(pb, t)
                ids.append(decoded[0]["service.instance.id"] if decoded else None)
            finally:
                t.close()
        check(ids[0] != ids[1], "two JVMs got the same service.instance.id %s" % ids)
    elif s == "bad-attributes":
        t = Target(args, work, "log=info", {"OTEL_SERVICE_NAME": "svc",
                                            "OTEL_RESOURCE_ATTRIBUTES": "good=1,bad=%zz"}, [])
        try:
            decoded, _ = read_context(pb, t)
            if decoded:
                check_resource(decoded[0], {"service.name": "svc", "service.instance.id": None,
                                            "telemetry.sdk.language": "java"})
            log = t.log()
            check("vtctx: OTEL_RESOURCE_ATTRIBUTES ignored: 'bad=%zz' has a bad %-escape" in log,
                  "the discarded value was not reported:\n" + log)
        finally:
            t.close()
    elif s == "late-attach":
        t = Target(args, work, None, {"OTEL_SERVICE_NAME": "svc-env"},
                   ["-XX:+EnableDynamicAgentLoading"])
        try:
            read_context(pb, t, expect_mapping=False)
            check(t.ask("active") == "ACTIVE false", "agent active before the attach")
            opts = "log=info,service_name=svc-late,attribute_keys=a|b"
            out = subprocess.run([args.jcmd, str(t.pid), "JVMTI.agent_load", args.agent,
                                  '"%s"' % opts], capture_output=True, text=True, timeout=TIMEOUT)
            print("jcmd:", out.stdout.strip(), out.stderr.strip())
            check(t.ask("active") == "ACTIVE true", "agent not active after the attach")
            decoded, snap = read_context(pb, t)
            if decoded:
                check_resource(decoded[0], {"service.name": "svc-late", "service.instance.id": None,
                                            "telemetry.sdk.language": "java"})
                check(decoded[2] == ["a", "b"], "key map %s" % decoded[2])
            check(t.ask("register b c") == "REGISTERED b=1 c=2", "register after attach")
            decoded2, snap2 = read_context(pb, t)
            if decoded2:
                check(decoded2[2] == ["a", "b", "c"], "key map after register %s" % decoded2[2])
            check("vtctx: active (attached, vtctx %s, " % vtctx_version in t.log(),
                  "agent did not report the attach with the project version")
        finally:
            t.close()
    elif s == "concurrent":
        concurrent(args, work, pb)
    else:
        raise SystemExit("unknown scenario " + s)


def concurrent(args, work, pb, threads=16, rounds=5, keys=50):
    """Many JVM threads append keys while this process keeps reading the context.

    Five rounds of 50 keys (254 keys in all with the pre-registered one, near the 255 limit), each
    registered by 16 threads (half virtual) at once, while a reader thread here loops over the
    reader protocol. Every consistent snapshot must decode and extend the previous key map; the
    rounds guarantee snapshots between bursts, the loop catches whatever it can inside them.
    """
    t = Target(args, work, "log=info,attribute_keys=pre.0", {}, [])
    try:
        mappings = otel_mappings(t.pid)
        if not check(len(mappings) == 1, "want one OTEL_CTX mapping: %s" % mappings):
            return
        addr = mappings[0][0]
        mem = Memory(t.pid)
        snapshots = {}  # published_at -> payload
        stats = {"attempts": 0, "retries": 0}
        stop = threading.Event()

        def reader():
            while not stop.is_set():
                stats["attempts"] += 1
                s = try_snapshot(mem, addr)
                if s is None:
                    stats["retries"] += 1
                elif s[0] not in snapshots:
                    snapshots[s[0]] = s[2]

        def checkpoint():  # a snapshot between bursts, taken here for certain
            at, _, payload = snapshot(mem, addr)
            snapshots[at] = payload

        index_of = {}
        checkpoint()
        r = threading.Thread(target=reader)
        r.start()
        try:
            for round in range(rounds):
                answer = t.ask("concurrent %d %d r%d" % (threads, keys, round), timeout=120)
                if not check(answer.startswith("DONE"), "threads disagree: " + answer):
                    return
                got = {k: int(i) for k, i in (item.split("=") for item in answer.split()[1:])}
                first = 1 + round * keys
                check(sorted(got.values()) == list(range(first, first + keys)),
                      "round %d indexes are not exactly %d..%d" % (round, first, first + keys - 1))
                index_of.update(got)
                checkpoint()
        finally:
            stop.set()
            r.join()
        mem.close()
        expected_final = ["pre.0"] + sorted(index_of, key=index_of.get)
        previous = None
        for at in sorted(snapshots):
            decoded = decode(pb, snapshots[at])
            if decoded is None:
                continue
            key_map = decoded[2]
            if previous is not None:
                check(key_map[:len(previous)] == previous,
                      "snapshot at %d does not extend the previous key map" % at)
            check(key_map == expected_final[:len(key_map)],
                  "snapshot at %d: key map is not a prefix of the final one" % at)
            previous = key_map
        check(previous == expected_final, "final key map differs from the indexes the JVM got")
        print("reader: %d attempts, %d retries, %d distinct snapshots" %
              (stats["attempts"], stats["retries"], len(snapshots)))
        check(len(snapshots) >= rounds + 1, "only %d snapshots" % len(snapshots))
    finally:
        t.close()


def main():
    p = argparse.ArgumentParser()
    for flag in ("--java", "--jcmd", "--agent", "--classes", "--protoc", "--proto", "--version"):
        p.add_argument(flag, required=True)
    p.add_argument("scenario")
    args = p.parse_args()
    global vtctx_version
    vtctx_version = args.version
    with tempfile.TemporaryDirectory() as work:
        pb = compile_proto(args.protoc, args.proto, work)
        try:
            run(args, work, pb)
        except Exception as e:  # a broken step is a failure, with its reason
            check(False, "%s: %s" % (type(e).__name__, e))
    print("FAIL (%d)" % len(failures) if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
