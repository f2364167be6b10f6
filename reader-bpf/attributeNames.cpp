#include "attributeNames.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "recordFormat.h"

namespace vtctx::reader {

std::string AttributeNames::Label(uint8_t index) const {
  const std::string* name = Find(index);
  return name != nullptr ? *name : absl::StrCat("#", index);
}

std::vector<NamedAttribute> NameAttributes(std::span<const uint8_t> attrs,
                                           const AttributeNames& names) {
  return NameAttributes(DecodeAttrs(attrs), names);
}

std::vector<NamedAttribute> NameAttributes(const std::map<uint8_t, std::string>& decoded,
                                           const AttributeNames& names) {
  std::vector<NamedAttribute> out;
  for (const auto& [index, value] : decoded) {  // by index, last entry per index
    const std::string* name = names.Find(index);
    std::string label = name != nullptr ? *name : absl::StrCat("#", index);
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const NamedAttribute& a) { return a.label == label; });
    if (same != out.end()) out.erase(same);  // a name given to two indexes: the higher one wins
    out.push_back({std::move(label), value, index, name != nullptr});
  }
  return out;
}

bool HasUnnamedIndex(std::span<const uint8_t> attrs, const AttributeNames& names) {
  size_t pos = 0;
  while (pos + 2 <= attrs.size()) {
    const uint8_t key = attrs[pos];
    const size_t len = attrs[pos + 1];
    if (pos + 2 + len > attrs.size()) break;  // truncated entry: the rest is not an attribute
    if (key >= names.size()) return true;
    pos += 2 + len;
  }
  return false;
}

}  // namespace vtctx::reader
