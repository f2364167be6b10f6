#!/usr/bin/env python3
"""The Python process-context code (processContextProto.py) against the golden vectors of
protocol/vectors/processContext.vec, the file the C++ tests read too: every `encode` vector's
input encodes to exactly its bytes, every `decode` payload reads as the vector says, and every
`malformed` payload is rejected.

  pctxVectorsTest.py --protoc PROTOC --proto FILE --vectors DIR

Exit 0 and a last line "PASS" only if every check held.
"""
import argparse
import os
import sys
import tempfile

from vtctxtest import processContextProto

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)


def vectors(path, kind):
    """[(name, {field: value})] of `kind` in the vector file at `path` (format: its header)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split()
            if not words or words[0].startswith("#") or words[0] != kind:
                continue
            out.append((words[1], dict(w.split("=", 1) for w in words[2:])))
    if not out:
        raise SystemExit("no '%s' vectors in %s" % (kind, path))
    return out


def unhex(text):
    return b"" if text == "-" else bytes.fromhex(text)


def strings(text):
    """A '-'-or-comma list of hex strings as str."""
    return [] if text == "-" else [unhex(s).decode() for s in text.split(",")]


def pairs(text):
    return [] if text == "-" else [tuple(unhex(p).decode() for p in kv.split(":"))
                                   for kv in text.split(",")]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--protoc", required=True)
    parser.add_argument("--proto", required=True)
    parser.add_argument("--vectors", required=True)
    args = parser.parse_args()
    path = os.path.join(args.vectors, "processContext.vec")
    with tempfile.TemporaryDirectory() as work:
        pb = processContextProto.compile_proto(args.protoc, args.proto, work)
    for name, v in vectors(path, "encode"):
        payload = processContextProto.encode(pb, pairs(v["resource"]), keys=strings(v["keys"]))
        check(payload.SerializeToString().hex() == v["bytes"], "encode %s: other bytes" % name)
    for name, v in vectors(path, "decode"):
        try:
            r = processContextProto.read(pb, unhex(v["bytes"]))
        except Exception as e:  # DecodeError and what the runtime raises for invalid UTF-8
            check(False, "decode %s: rejected (%s)" % (name, e))
            continue
        resource = [(k, val.string_value) for k, val in r.resource]
        check(resource == pairs(v["resource"]), "decode %s: resource %r" % (name, resource))
        want_schema = None if v["schema"] == "-" else unhex(v["schema"]).decode()
        check(r.schema == want_schema, "decode %s: schema %r" % (name, r.schema))
        check(r.supported == (v["supported"] == "1"), "decode %s: supported" % name)
        check((r.key_map or "absent") == v["key_map"], "decode %s: key map %r" % (name, r.key_map))
        check(r.keys == strings(v["keys"]), "decode %s: keys %r" % (name, r.keys))
    for name, v in vectors(path, "malformed"):
        try:
            processContextProto.read(pb, unhex(v["bytes"]))
            check(False, "malformed %s: accepted" % name)
        except Exception:  # rejected, as it must be
            pass
    print("FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
