// Formatting of a thread's context (as read by BPF or by `resolve`) for the CLI: JSON fields and
// one-line text. One definition of the field semantics for every subcommand:
//   record       "0x<address>" of the record the slot points at, "" if none
//   valid        the record's valid byte (1 = usable), 0 when no record was read
//   trace_id     32 lowercase hex digits, "" unless valid == 1 and the id is not all zero
//   span_id      16 lowercase hex digits, same rule
//   trace_flags  2 lowercase hex digits, "" unless valid == 1
//   context      how the read went: ok | null | no_slot | fault | no_tp
//   attrs        {"<key index>": "<value>"} (last entry per key wins), only when present
//   attributes   {"<name>": "<value>"}, the same entries named through the process context's
//                key map ("#<index>" when it names no such index; attributeNames.h), only with
//                attrs
#ifndef VTCTX_READER_RECORD_FORMAT_H_
#define VTCTX_READER_RECORD_FORMAT_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "absl/strings/string_view.h"
#include "target/attributeNames.h"
#include "target/tlsSlot.h"

namespace vtctx::reader {

struct ContextView {
  uint8_t status = VTCTX_CTX_NULL;  // enum vtctx_ctx_status
  uint64_t record = 0;
  vtctx_record_header header{};
  std::span<const uint8_t> attrs;  // attrs-data bytes that were copied (may be truncated)
};

// True when the context carries usable ids (status ok, valid == 1).
bool IsValidContext(const ContextView& ctx);

absl::string_view ContextStatusName(uint8_t status);

// Decodes attrs-data entries (vtctx/attrsData.h): key index -> value, the last entry of a key
// winning; stops at a truncated entry.
std::map<uint8_t, std::string> DecodeAttrs(std::span<const uint8_t> attrs);

// Lowercase hex of the ids; "" when the context is not valid or the id is all zero.
std::string TraceIdHex(const ContextView& ctx);
std::string SpanIdHex(const ContextView& ctx);

void AppendHex(std::string& out, const uint8_t* bytes, size_t size);
// Appends a JSON string literal of a target's text (untrustedText.h): control characters (C0, DEL,
// C1) escaped as \u00XX, invalid UTF-8 bytes as U+FFFD.
void AppendJsonString(std::string& out, absl::string_view text);

// Appends ` <label>="<value>"`: the label through AppendSafeText, the value as a JSON string.
void AppendAttributeText(std::string& out, absl::string_view label, absl::string_view value);
// Appends `text` with what untrustedText.h refuses (control characters, invalid UTF-8) and spaces
// replaced by '_' (for names in space-separated text; names come from another process).
void AppendSafeText(std::string& out, absl::string_view text);

// Appends the context fields above, comma-separated, without braces. `names` labels attributes
// (null: every index is "#<index>").
void AppendContextJson(std::string& out, const ContextView& ctx,
                       const AttributeNames* names = nullptr);
// Appends "trace=<id> span=<id> flags=<xx>" and one ` <name>="<value>"` per attribute (values
// escaped as JSON strings), or "no context (<why>)".
void AppendContextText(std::string& out, const ContextView& ctx,
                       const AttributeNames* names = nullptr);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_RECORD_FORMAT_H_
