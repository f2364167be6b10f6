#include "recordFormat.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace vtctx::reader {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

bool AllZero(const uint8_t* bytes, size_t size) {
  return std::all_of(bytes, bytes + size, [](uint8_t b) { return b == 0; });
}

std::string IdHex(const ContextView& ctx, const uint8_t* bytes, size_t size) {
  std::string out;
  if (!IsValidContext(ctx) || AllZero(bytes, size)) return out;
  AppendHex(out, bytes, size);
  return out;
}

// Length of the valid UTF-8 sequence at the start of `s`, 0 if invalid.
size_t Utf8SequenceLength(absl::string_view s) {
  const auto b0 = static_cast<uint8_t>(s[0]);
  size_t len = 0;
  uint32_t min = 0;
  if (b0 < 0x80) return 1;
  if ((b0 & 0xe0) == 0xc0) {
    len = 2;
    min = 0x80;
  } else if ((b0 & 0xf0) == 0xe0) {
    len = 3;
    min = 0x800;
  } else if ((b0 & 0xf8) == 0xf0) {
    len = 4;
    min = 0x10000;
  } else {
    return 0;
  }
  if (s.size() < len) return 0;
  uint32_t cp = b0 & (0x7f >> len);
  for (size_t i = 1; i < len; ++i) {
    const auto b = static_cast<uint8_t>(s[i]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

}  // namespace

bool IsValidContext(const ContextView& ctx) {
  return ctx.status == VTCTX_CTX_OK && ctx.header.valid == VTCTX_RECORD_VALID;
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
  }
  return "unknown";
}

std::map<uint8_t, std::string> DecodeAttrs(std::span<const uint8_t> attrs) {
  std::map<uint8_t, std::string> out;
  size_t pos = 0;
  while (pos + 2 <= attrs.size()) {
    const uint8_t key = attrs[pos];
    const uint8_t len = attrs[pos + 1];
    if (pos + 2 + len > attrs.size()) break;  // truncated entry: stop
    out[key].assign(reinterpret_cast<const char*>(attrs.data() + pos + 2), len);
    pos += 2 + len;
  }
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

void AppendJsonString(std::string& out, absl::string_view text) {
  out.push_back('"');
  while (!text.empty()) {
    const char c = text[0];
    const size_t len = Utf8SequenceLength(text);
    if (len == 0) {
      out += "\\ufffd";
      text.remove_prefix(1);
      continue;
    }
    if (len > 1) {
      out.append(text.data(), len);
    } else if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<uint8_t>(c) < 0x20) {
      out += absl::StrFormat("\\u%04x", static_cast<unsigned>(c));
    } else {
      out.push_back(c);
    }
    text.remove_prefix(len);
  }
  out.push_back('"');
}

void AppendContextJson(std::string& out, const ContextView& ctx) {
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
    out += '}';
  }
}

void AppendContextText(std::string& out, const ContextView& ctx) {
  if (!IsValidContext(ctx)) {
    out += "no context (";
    if (ctx.status == VTCTX_CTX_OK) {
      out += absl::StrFormat("record 0x%x valid=%d", ctx.record, ctx.header.valid);
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
  for (const auto& [key, value] : DecodeAttrs(ctx.attrs)) {
    out += absl::StrFormat(" attr[%d]=", key);
    AppendJsonString(out, value);
  }
}

}  // namespace vtctx::reader
