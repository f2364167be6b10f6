#include "target/attributeNames.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "target/recordFormat.h"
#include "vtctx/attrsData.h"

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
  bool unnamed = false;
  ForEachAttrsEntry(attrs.data(), attrs.size(),
                    [&](uint8_t key, size_t, size_t) { unnamed = unnamed || key >= names.size(); });
  return unnamed;
}

}  // namespace vtctx::reader
