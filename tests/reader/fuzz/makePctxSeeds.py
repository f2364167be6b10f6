#!/usr/bin/env python3
"""Regenerates the committed seed corpus of pctxFuzzer: OTEP 4719 payloads encoded by
python3-protobuf from tests/pctx/processContext.proto (compiled here with protoc), and a few
"memory images" (a 32-byte header at offset 0 followed by its payload). Writes ./pctxSeeds next to
this script.

  PYTHONPATH=tests/lib python3 tests/reader/fuzz/makePctxSeeds.py [--protoc protoc]
"""
import argparse
import os
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO = os.path.join(HERE, "..", "..", "pctx", "processContext.proto")
from vtctxtest.processContextProto import (HEADER, SCHEMA_VERSION, SIGNATURE, VERSION,  # noqa: E402
                                 compile_proto, encode)


def context(pb, resource, schema=SCHEMA_VERSION, keys=()):
    return encode(pb, resource, schema, keys)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--protoc", default="protoc")
    args = parser.parse_args()
    out = os.path.join(HERE, "pctxSeeds")
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        pb = compile_proto(args.protoc, PROTO, work)
    agent = [("service.name", "checkout"),
             ("service.instance.id", "0b4f6bde-57a5-4c3c-9a59-3e4cbb1b4b4f"),
             ("telemetry.sdk.language", "java")]
    seeds = {
        "agent-two-keys": context(pb, agent, keys=["http.route", "user.id"]),
        "agent-no-keys": context(pb, agent, keys=[]),
        "agent-255-keys": context(pb, agent, keys=["key.%d" % i for i in range(255)]),
        "no-schema": context(pb, agent, schema=None, keys=["a"]),
        "other-schema": context(pb, agent, schema="tls_v1", keys=["a"]),
        "no-key-map": context(pb, agent, keys=None),
        "utf8": context(pb, [("service.name", "caf\u00e9 \U0001f680")], keys=["r\u00f4le"]),
    }
    # Every AnyValue kind, nested.
    c = context(pb, agent, keys=["a"])
    r = c.resource.attributes
    r.add(key="b", value=pb.AnyValue(bool_value=True))
    r.add(key="i", value=pb.AnyValue(int_value=-5))
    r.add(key="d", value=pb.AnyValue(double_value=1.5))
    r.add(key="y", value=pb.AnyValue(bytes_value=b"\x00\xff"))
    a = r.add(key="a")
    a.value.array_value.values.add(string_value="x")
    a.value.array_value.values.add().array_value.values.add(int_value=2)
    kv = r.add(key="l")
    kv.value.kvlist_value.values.add(key="k", value=pb.AnyValue(string_value="v"))
    r.add(key="e").value.SetInParent()
    c.resource.dropped_attributes_count = 3
    seeds["every-kind"] = c
    bad = context(pb, agent, keys=["a"])
    bad.extra_attributes[1].value.array_value.values.add(int_value=1)
    seeds["bad-key-map"] = bad
    for name, message in seeds.items():
        with open(os.path.join(out, name + ".pb"), "wb") as f:
            f.write(message.SerializeToString())
    # Memory images: header at 0, payload right after it (pointer 32).
    for name in ("agent-two-keys", "every-kind"):
        payload = seeds[name].SerializeToString()
        header = HEADER.pack(SIGNATURE, VERSION, len(payload), 123456789, 32)
        with open(os.path.join(out, name + ".mem"), "wb") as f:
            f.write(header + payload)
    # Record attrs-data alone (the OTEP vector).
    with open(os.path.join(out, "otep-attrs.bin"), "wb") as f:
        f.write(bytes([0, 3]) + b"foo" + bytes([1, 3]) + b"bar")


if __name__ == "__main__":
    main()
