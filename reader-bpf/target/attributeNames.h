// Naming of record attributes (OTEP 4947 attrs-data) through the key map a process publishes in
// its OTEP 4719 process context (`threadlocal.attribute_key_map`: element i names key index i).
//
// Rules (OTEP 4947 and the OpenTelemetry eBPF profiler's reader):
// - entries are {key_index u8, length u8, value[length]}; decoding stops at a truncated entry;
// - a key index present twice: the last entry wins;
// - an index the key map does not name (beyond it, or no usable map at all) gets no name: it is
//   labelled "#<index>" so the value is still shown, never attached to a wrong name;
// - if two indexes carry the same name (a broken key map), the higher index wins.
#ifndef VTCTX_READER_ATTRIBUTE_NAMES_H_
#define VTCTX_READER_ATTRIBUTE_NAMES_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace vtctx::reader {

class AttributeNames {
 public:
  AttributeNames() = default;  // names nothing: every index is "#<index>"
  explicit AttributeNames(std::vector<std::string> names) : names_(std::move(names)) {}

  // The name of key `index`, or null.
  const std::string* Find(uint8_t index) const {
    return index < names_.size() ? &names_[index] : nullptr;
  }
  size_t size() const { return names_.size(); }
  const std::vector<std::string>& names() const { return names_; }

  // The name, or "#<index>".
  std::string Label(uint8_t index) const;

 private:
  std::vector<std::string> names_;
};

struct NamedAttribute {
  std::string label;  // the key's name, or "#<index>"
  std::string value;  // raw bytes (UTF-8 by contract, not trusted)
  uint8_t index = 0;
  bool named = false;
};

// The attributes of `attrs` (attrs-data bytes), ordered by key index, labelled by `names`.
std::vector<NamedAttribute> NameAttributes(std::span<const uint8_t> attrs,
                                           const AttributeNames& names);

// The same for entries already decoded (DecodeAttrs: key index -> value).
std::vector<NamedAttribute> NameAttributes(const std::map<uint8_t, std::string>& decoded,
                                           const AttributeNames& names);

// True if some complete entry of `attrs` has an index `names` does not name.
bool HasUnnamedIndex(std::span<const uint8_t> attrs, const AttributeNames& names);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_ATTRIBUTE_NAMES_H_
