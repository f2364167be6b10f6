#include "target/recordFormat.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "target/untrustedText.h"
#include "vtctx/attrsData.h"
#include "vtctx/utf8.h"

namespace vtctx::reader {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
const AttributeNames kNoNames;

bool AllZero(const uint8_t* bytes, size_t size) {
  return std::all_of(bytes, bytes + size, [](uint8_t b) { return b == 0; });
}

std::string IdHex(const ContextView& ctx, const uint8_t* bytes, size_t size) {
  std::string out;
  if (!IsValidContext(ctx) || AllZero(bytes, size)) return out;
  AppendHex(out, bytes, size);
  return out;
}

}  // namespace

bool IsValidContext(const ContextView& ctx) {
  // OTEP 4947: a context has both ids; a record with one of them all zero is no context.
  return ctx.status == VTCTX_CTX_OK && ctx.header.valid == VTCTX_RECORD_VALID &&
         !AllZero(ctx.header.trace_id, sizeof ctx.header.trace_id) &&
         !AllZero(ctx.header.span_id, sizeof ctx.header.span_id);
}

absl::string_view ContextStatusName(uint8_t status) {
  switch (status) {
    case VTCTX_CTX_OK:
      return "ok";
    case VTCTX_CTX_NULL:
      return "null";
    case VTCTX_CTX_NO_SLOT:
      return "no_slot";
    case VTCTX_CTX_FAULT:
      return "fault";
    case VTCTX_CTX_NO_TP:
      return "no_tp";
    case VTCTX_CTX_NO_JAVA_THREAD:
      return "no_java_thread";
    case VTCTX_CTX_CHANGED:
      return "changed";
  }
  return "unknown";
}

std::map<uint8_t, std::string> DecodeAttrs(std::span<const uint8_t> attrs) {
  std::map<uint8_t, std::string> out;
  ForEachAttrsEntry(attrs.data(), attrs.size(), [&](uint8_t key, size_t at, size_t entry) {
    out[key].assign(reinterpret_cast<const char*>(attrs.data() + at + kAttributeEntryHeaderSize),
                    entry - kAttributeEntryHeaderSize);  // a later entry of the key replaces it
  });
  return out;
}

std::string TraceIdHex(const ContextView& ctx) {
  return IdHex(ctx, ctx.header.trace_id, sizeof ctx.header.trace_id);
}

std::string SpanIdHex(const ContextView& ctx) {
  return IdHex(ctx, ctx.header.span_id, sizeof ctx.header.span_id);
}

void AppendHex(std::string& out, const uint8_t* bytes, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHexDigits[bytes[i] >> 4]);
    out.push_back(kHexDigits[bytes[i] & 0xf]);
  }
}

void AppendJsonString(std::string& out, absl::string_view value) {
  out.push_back('"');
  ScanTargetText(
      value,
      [&](absl::string_view run) {
        for (char c : run) {
          if (c == '"' || c == '\\') out.push_back('\\');
          out.push_back(c);
        }
      },
      [&](absl::string_view unit) {
        // A control character (C0, DEL, C1) by its code point; a byte of invalid UTF-8 as U+FFFD.
        const std::string_view seq(unit.data(), unit.size());
        if (Utf8SequenceLength(seq) == 0) {
          out += "\\ufffd";
        } else {
          const unsigned cp = unit.size() == 1 ? static_cast<uint8_t>(unit[0])
                                               : ((static_cast<uint8_t>(unit[0]) & 0x1fu) << 6) |
                                                     (static_cast<uint8_t>(unit[1]) & 0x3fu);
          out += absl::StrFormat("\\u%04x", cp);
        }
      });
  out.push_back('"');
}

void AppendContextJson(std::string& out, const ContextView& ctx, const AttributeNames* names) {
  const bool have_record = ctx.status == VTCTX_CTX_OK || ctx.status == VTCTX_CTX_FAULT;
  out += "\"record\":\"";
  if (have_record && ctx.record != 0) out += absl::StrFormat("0x%x", ctx.record);
  out += "\",\"valid\":";
  out += std::to_string(ctx.status == VTCTX_CTX_OK ? ctx.header.valid : 0);
  out += ",\"trace_id\":\"";
  out += TraceIdHex(ctx);
  out += "\",\"span_id\":\"";
  out += SpanIdHex(ctx);
  out += "\",\"trace_flags\":\"";
  if (IsValidContext(ctx)) AppendHex(out, &ctx.header.trace_flags, 1);
  out += "\",\"context\":\"";
  absl::StrAppend(&out, ContextStatusName(ctx.status), "\"");
  if (IsValidContext(ctx) && !ctx.attrs.empty()) {
    out += ",\"attrs\":{";
    bool first = true;
    for (const auto& [key, value] : DecodeAttrs(ctx.attrs)) {
      if (!first) out.push_back(',');
      first = false;
      out += '"';
      out += std::to_string(key);
      out += "\":";
      AppendJsonString(out, value);
    }
    out += "},\"attributes\":{";
    first = true;
    for (const NamedAttribute& a : NameAttributes(ctx.attrs, names ? *names : kNoNames)) {
      if (!first) out.push_back(',');
      first = false;
      AppendJsonString(out, a.label);
      out += ':';
      AppendJsonString(out, a.value);
    }
    out += '}';
  }
}

void AppendAttributeText(std::string& out, absl::string_view label, absl::string_view value) {
  out += ' ';
  AppendSafeText(out, label);
  out += '=';
  AppendJsonString(out, value);
}

void AppendSafeText(std::string& out, absl::string_view value) {
  ScanTargetText(
      value,
      [&](absl::string_view run) {
        for (char c : run) out.push_back(c == ' ' ? '_' : c);
      },
      [&](absl::string_view) { out.push_back('_'); });
}

void AppendContextText(std::string& out, const ContextView& ctx, const AttributeNames* names) {
  if (!IsValidContext(ctx)) {
    out += "no context (";
    if (ctx.status == VTCTX_CTX_OK) {
      out += absl::StrFormat("record 0x%x valid=%d", ctx.record, ctx.header.valid);
      if (ctx.header.valid == VTCTX_RECORD_VALID) out += ", a trace-id or span-id all zero";
    } else {
      absl::StrAppend(&out, ContextStatusName(ctx.status));
    }
    out += ')';
    return;
  }
  const std::string trace = TraceIdHex(ctx);
  const std::string span = SpanIdHex(ctx);
  out += "trace=";
  out += trace.empty() ? "-" : trace;
  out += " span=";
  out += span.empty() ? "-" : span;
  out += " flags=";
  AppendHex(out, &ctx.header.trace_flags, 1);
  for (const NamedAttribute& a : NameAttributes(ctx.attrs, names ? *names : kNoNames)) {
    AppendAttributeText(out, a.label, a.value);
  }
}

}  // namespace vtctx::reader
