#include "target/processContextReader.h"

#include <sched.h>

#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "target/recordFormat.h"

namespace vtctx::reader {
namespace {

constexpr absl::string_view kAcceptedNames[] = {
    VTCTX_PCTX_MAPPING_MEMFD, VTCTX_PCTX_MAPPING_MEMFD_DELETED, VTCTX_PCTX_MAPPING_MEMFD_NAMED,
    VTCTX_PCTX_MAPPING_ANON_NAMED};

ProcessContext Invalid(std::string reason, uint64_t address = 0, std::string name = "") {
  ProcessContext c;
  c.status = ProcessContext::Status::kInvalid;
  c.reason = std::move(reason);
  c.address = address;
  c.mapping_name = std::move(name);
  return c;
}

// The key of `kv` is one of the thread-context keys shown on their own.
bool IsThreadContextKey(const KeyValue& kv) {
  return kv.key == VTCTX_PCTX_KEY_SCHEMA_VERSION || kv.key == VTCTX_PCTX_KEY_ATTRIBUTE_KEY_MAP;
}

}  // namespace

std::vector<Mapping> FindContextMappings(const std::vector<Mapping>& maps) {
  std::vector<Mapping> out;
  for (const Mapping& m : maps) {
    bool named = false;
    for (absl::string_view name : kAcceptedNames) named = named || m.path == name;
    if (!named || m.executable || !m.readable) continue;
    if (m.end - m.start < VTCTX_PCTX_HEADER_SIZE) continue;
    out.push_back(m);
  }
  return out;
}

absl::StatusOr<uint64_t> ReadPublishedAt(MemoryReader& memory, uint64_t header_address) {
  return memory.ReadU64(header_address + VTCTX_PCTX_OFFSET_PUBLISHED_AT_NS);
}

absl::StatusOr<ContextSnapshot> ReadContextSnapshot(MemoryReader& memory, uint64_t header_address) {
  for (int attempt = 0; attempt < kMaxSnapshotAttempts; ++attempt) {
    if (attempt > 0) sched_yield();  // let a writer in the middle of an update finish
    absl::StatusOr<uint64_t> before = ReadPublishedAt(memory, header_address);
    if (!before.ok()) return before.status();
    if (*before == 0) continue;  // update in progress
    // Reads through process_vm_readv are syscalls (ordered); the fences matter when the memory
    // reader reads this process's own memory (tests).
    std::atomic_thread_fence(std::memory_order_seq_cst);
    ContextSnapshot snap;
    if (absl::Status s = memory.Read(header_address, &snap.header, sizeof snap.header); !s.ok()) {
      return s;
    }
    if (std::memcmp(snap.header.signature, VTCTX_PCTX_SIGNATURE, VTCTX_PCTX_SIGNATURE_SIZE) != 0) {
      return absl::InvalidArgumentError("header signature is not OTEL_CTX");
    }
    if (snap.header.version != VTCTX_PCTX_VERSION) {
      return absl::InvalidArgumentError(absl::StrCat(
          "header version ", snap.header.version, " (this reader knows ", VTCTX_PCTX_VERSION, ")"));
    }
    if (snap.header.payload_size == 0 || snap.header.payload_size > VTCTX_PCTX_MAX_PAYLOAD_SIZE) {
      return absl::InvalidArgumentError(absl::StrCat("payload size ", snap.header.payload_size,
                                                     " outside 1..", VTCTX_PCTX_MAX_PAYLOAD_SIZE));
    }
    snap.payload.resize(snap.header.payload_size);
    // A failed payload read is judged after the timestamp check: an update may have moved the
    // payload between the header read and this one.
    const absl::Status payload_read =
        memory.Read(snap.header.payload, snap.payload.data(), snap.payload.size());
    std::atomic_thread_fence(std::memory_order_seq_cst);
    absl::StatusOr<uint64_t> after = ReadPublishedAt(memory, header_address);
    if (!after.ok()) return after.status();
    if (*after != *before) continue;  // updated meanwhile: the payload may be torn
    if (!payload_read.ok()) {
      return absl::DataLossError(absl::StrFormat("payload at 0x%x (%d bytes) unreadable: %s",
                                                 snap.header.payload, snap.header.payload_size,
                                                 payload_read.message()));
    }
    snap.header.published_at_ns = *before;
    return snap;
  }
  return absl::UnavailableError(
      absl::StrCat("the process context changed during each of ", kMaxSnapshotAttempts, " reads"));
}

ProcessContext ReadProcessContextAt(uint64_t header_address, std::string mapping_name,
                                    MemoryReader& memory) {
  absl::StatusOr<ContextSnapshot> snap = ReadContextSnapshot(memory, header_address);
  if (!snap.ok()) {
    return Invalid(std::string(snap.status().message()), header_address, mapping_name);
  }
  absl::StatusOr<ProcessContextPayload> payload = DecodeProcessContextPayload(snap->payload);
  if (!payload.ok()) {
    return Invalid(absl::StrCat("payload does not decode: ", payload.status().message()),
                   header_address, mapping_name);
  }
  ProcessContext c;
  c.status = ProcessContext::Status::kOk;
  c.address = header_address;
  c.mapping_name = std::move(mapping_name);
  c.header = snap->header;
  c.thread = InterpretThreadContext(*payload);
  c.payload = *std::move(payload);
  return c;
}

ProcessContext ReadProcessContext(const std::vector<Mapping>& maps, MemoryReader& memory) {
  const std::vector<Mapping> found = FindContextMappings(maps);
  if (found.empty()) {
    ProcessContext c;
    c.reason = "no OTEL_CTX mapping";
    return c;
  }
  if (found.size() > 1) {
    return Invalid(absl::StrFormat("%d OTEL_CTX mappings (at 0x%x and 0x%x): ambiguous",
                                   found.size(), found[0].start, found[1].start));
  }
  return ReadProcessContextAt(found[0].start, found[0].path, memory);
}

ProcessContext ReadProcessContext(pid_t pid, MemoryReader& memory) {
  absl::StatusOr<std::vector<Mapping>> maps = ReadMaps(pid);
  if (!maps.ok()) return Invalid(std::string(maps.status().message()));
  return ReadProcessContext(*maps, memory);
}

std::string ExtraString(const ProcessContext& context, absl::string_view key) {
  if (!context.ok()) return "";
  for (const KeyValue& kv : context.payload.extra) {
    if (kv.key == key && kv.value.kind == AnyValue::Kind::kString) return kv.value.text;
  }
  return "";
}

AttributeNames NamesOf(const ProcessContext& context) {
  return context.NamesAttributes() ? AttributeNames(context.thread.key_map) : AttributeNames();
}

std::string DescribeLimitation(const ProcessContext& c, pid_t pid) {
  constexpr absl::string_view kStill =
      "trace and span ids are read; attributes are shown by key "
      "index (#N)";
  switch (c.status) {
    case ProcessContext::Status::kAbsent:
      return absl::StrCat("pid ", pid, " has no OTEP 4719 process context (", c.reason,
                          "): ", kStill);
    case ProcessContext::Status::kInvalid:
      return absl::StrCat("pid ", pid, ": process context unreadable (", c.reason, "): ", kStill);
    case ProcessContext::Status::kOk:
      break;
  }
  if (!c.thread.schema_present) {
    return absl::StrCat("pid ", pid, ": process context has no " VTCTX_PCTX_KEY_SCHEMA_VERSION ": ",
                        kStill);
  }
  if (!c.thread.schema_supported) {
    std::string version;
    AppendJsonString(version, c.thread.schema_version);
    return absl::StrCat("pid ", pid, ": " VTCTX_PCTX_KEY_SCHEMA_VERSION " is ", version,
                        ", not " VTCTX_PCTX_THREADLOCAL_SCHEMA_VERSION ": ", kStill);
  }
  if (!c.thread.key_map_error.empty()) {
    return absl::StrCat("pid ", pid, ": " VTCTX_PCTX_KEY_ATTRIBUTE_KEY_MAP " unusable (",
                        c.thread.key_map_error, "): ", kStill);
  }
  return "";
}

std::string ProcessContextJson(const ProcessContext& c) {
  std::string out = "{\"status\":";
  if (!c.ok()) {
    out += c.status == ProcessContext::Status::kAbsent ? "\"absent\"" : "\"invalid\"";
    if (!c.mapping_name.empty()) {
      out += ",\"mapping\":";
      AppendJsonString(out, c.mapping_name);
      absl::StrAppendFormat(&out, ",\"address\":\"0x%x\"", c.address);
    }
    out += ",\"reason\":";
    AppendJsonString(out, c.reason);
    out += '}';
    return out;
  }
  out += "\"ok\",\"mapping\":";
  AppendJsonString(out, c.mapping_name);
  absl::StrAppendFormat(&out, ",\"address\":\"0x%x\",\"published_at_ns\":%d,\"payload_size\":%d",
                        c.address, c.header.published_at_ns, c.header.payload_size);
  out += ",\"resource\":{";
  for (size_t i = 0; i < c.payload.resource.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, c.payload.resource[i].key);
    out += ':';
    AppendAnyValueJson(out, c.payload.resource[i].value);
  }
  out += "},\"schema_version\":";
  if (c.thread.schema_present) {
    AppendJsonString(out, c.thread.schema_version);
  } else {
    out += "null";
  }
  absl::StrAppend(&out, ",\"schema_supported\":", c.thread.schema_supported ? "true" : "false",
                  ",\"attribute_key_map\":");
  if (c.thread.key_map_present && c.thread.key_map_error.empty()) {
    out += '[';
    for (size_t i = 0; i < c.thread.key_map.size(); ++i) {
      if (i > 0) out += ',';
      AppendJsonString(out, c.thread.key_map[i]);
    }
    out += ']';
  } else {
    out += "null";
  }
  if (!c.thread.key_map_error.empty()) {
    out += ",\"attribute_key_map_error\":";
    AppendJsonString(out, c.thread.key_map_error);
  }
  bool first = true;
  for (const KeyValue& kv : c.payload.extra) {
    if (IsThreadContextKey(kv)) continue;
    out += first ? ",\"extra_attributes\":{" : ",";
    first = false;
    AppendJsonString(out, kv.key);
    out += ':';
    AppendAnyValueJson(out, kv.value);
  }
  if (!first) out += '}';
  out += '}';
  return out;
}

std::string ProcessContextText(const ProcessContext& c) {
  if (c.status == ProcessContext::Status::kAbsent) {
    return absl::StrCat("process context (OTEP 4719): none (", c.reason, ")\n");
  }
  if (!c.ok()) {
    std::string where;
    if (!c.mapping_name.empty()) {
      where = absl::StrFormat(" at 0x%x %s", c.address, c.mapping_name);
    }
    return absl::StrCat("process context (OTEP 4719)", where, ": unreadable (", c.reason, ")\n");
  }
  std::string out =
      absl::StrFormat("process context (OTEP 4719) at 0x%x %s, published_at_ns %d, %d bytes:\n",
                      c.address, c.mapping_name, c.header.published_at_ns, c.header.payload_size);
  auto line = [&out](absl::string_view prefix, const KeyValue& kv) {
    absl::StrAppend(&out, "  ", prefix);
    AppendSafeText(out, kv.key);
    out += '=';
    AppendAnyValueJson(out, kv.value);
    out += '\n';
  };
  for (const KeyValue& kv : c.payload.resource) line("resource ", kv);
  for (const KeyValue& kv : c.payload.extra) {
    if (!IsThreadContextKey(kv)) line("extra ", kv);
  }
  out += "  " VTCTX_PCTX_KEY_SCHEMA_VERSION "=";
  if (c.thread.schema_present) {
    AppendJsonString(out, c.thread.schema_version);
    if (!c.thread.schema_supported) out += " (unsupported: attributes are not named)";
  } else {
    out += "(absent: attributes are not named)";
  }
  out += "\n  " VTCTX_PCTX_KEY_ATTRIBUTE_KEY_MAP ":";
  if (!c.thread.key_map_error.empty()) {
    absl::StrAppend(&out, " (unusable: ", c.thread.key_map_error, ")");
  } else if (!c.thread.key_map_present) {
    out += " (absent)";
  } else if (c.thread.key_map.empty()) {
    out += " (empty)";
  }
  for (size_t i = 0; i < c.thread.key_map.size(); ++i) {
    absl::StrAppend(&out, " ", i, "=");
    AppendJsonString(out, c.thread.key_map[i]);
  }
  out += '\n';
  return out;
}

}  // namespace vtctx::reader
