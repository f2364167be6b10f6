"""The OTEP 4719 payload in Python, once, for every Python test: the protobuf module compiled from
tests/pctx/processContext.proto, the payload encoder (a real protobuf runtime) and the reader's
reading of it (docs/protocol.md). Checked against protocol/vectors/processContext.vec by
pctxVectorsTest.py.
"""
import importlib.util
import os
import struct
import subprocess

SCHEMA_VERSION_KEY = "threadlocal.schema_version"
KEY_MAP_KEY = "threadlocal.attribute_key_map"
SCHEMA_VERSION = "tlsdesc_v1_dev"  # the only version today's readers accept

# The 32-byte header (protocol/include/vtctx/processContextHeader.h), host byte order: signature,
# version, payload size, published_at_ns, payload address.
HEADER = struct.Struct("=8sIIQQ")
SIGNATURE = b"OTEL_CTX"
VERSION = 2
# Names the mapping may carry in /proc/<pid>/maps.
MAPPING_NAMES = {"/memfd:OTEL_CTX", "/memfd:OTEL_CTX (deleted)", "[anon_shmem:OTEL_CTX]",
                 "[anon:OTEL_CTX]"}


def compile_proto(protoc, proto, out_dir):
    """Compiles `proto` with protoc into out_dir and returns the generated module."""
    subprocess.run([protoc, "--proto_path=" + os.path.dirname(proto), "--python_out=" + out_dir,
                    proto], check=True)
    name = os.path.splitext(os.path.basename(proto))[0] + "_pb2"
    spec = importlib.util.spec_from_file_location(name, os.path.join(out_dir, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def encode(pb, resource, schema=SCHEMA_VERSION, keys=()):
    """A ProcessContext message: `resource` is (key, value) pairs (str, bool or int values), then
    the schema version (None: absent) and the key map `keys` (None: absent; [] an empty array)."""
    ctx = pb.ProcessContext()
    for key, value in resource:
        kv = ctx.resource.attributes.add(key=key)
        if isinstance(value, bool):
            kv.value.bool_value = value
        elif isinstance(value, int):
            kv.value.int_value = value
        else:
            kv.value.string_value = value
    if schema is not None:
        ctx.extra_attributes.add(key=SCHEMA_VERSION_KEY, value=pb.AnyValue(string_value=schema))
    if keys is not None:
        kv = ctx.extra_attributes.add(key=KEY_MAP_KEY)
        kv.value.array_value.SetInParent()
        for k in keys:
            kv.value.array_value.values.add(string_value=k)
    return ctx


class Reading:
    """What a reader takes from a payload (the rules of reader-bpf/target/processContextPayload.h)."""

    def __init__(self, ctx):
        self.message = ctx
        self.resource = [(kv.key, kv.value) for kv in ctx.resource.attributes]
        self.schema = None  # the schema version's string, "" if not a string, None if absent
        self.key_map = None  # "ok", "error" or None (absent)
        self.keys = []  # the key map when "ok": element i names key index i
        for kv in ctx.extra_attributes:  # a key present twice: the last one counts
            if kv.key == SCHEMA_VERSION_KEY:
                is_string = kv.value.WhichOneof("value") == "string_value"
                self.schema = kv.value.string_value if is_string else ""
            elif kv.key == KEY_MAP_KEY:
                values = kv.value.array_value.values
                usable = kv.value.WhichOneof("value") == "array_value" and all(
                    v.WhichOneof("value") == "string_value" and v.string_value for v in values)
                self.key_map = "ok" if usable else "error"
                self.keys = [v.string_value for v in values] if usable else []

    @property
    def supported(self):
        return self.schema == SCHEMA_VERSION


def read(pb, payload):
    """The reader's view of `payload`; raises (protobuf's DecodeError) if it is malformed."""
    ctx = pb.ProcessContext()
    ctx.ParseFromString(payload)
    return Reading(ctx)
