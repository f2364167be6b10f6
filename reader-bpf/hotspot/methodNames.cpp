#include "hotspot/methodNames.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hotspot/hotspotNames.h"
#include "target/untrustedText.h"

namespace vtctx::reader {
namespace {

constexpr uint16_t kAccNative = 0x0100;  // JVM_ACC_NATIVE

template <typename T>
absl::StatusOr<T> ReadValue(MemoryReader& memory, uint64_t address) {
  T value{};
  if (absl::Status s = memory.Read(address, &value, sizeof value); !s.ok()) return s;
  return value;
}

// The external form of one field descriptor at `*pos` ("I" -> "int", "[Ljava/lang/String;" ->
// "java.lang.String[]"), advancing `*pos`.
std::optional<std::string> ExternalType(absl::string_view d, size_t* pos) {
  int dims = 0;
  while (*pos < d.size() && d[*pos] == '[') {
    ++dims;
    ++*pos;
    if (dims > 255) return std::nullopt;
  }
  if (*pos >= d.size()) return std::nullopt;
  std::string type;
  switch (d[(*pos)++]) {
    case 'B':
      type = "byte";
      break;
    case 'C':
      type = "char";
      break;
    case 'D':
      type = "double";
      break;
    case 'F':
      type = "float";
      break;
    case 'I':
      type = "int";
      break;
    case 'J':
      type = "long";
      break;
    case 'S':
      type = "short";
      break;
    case 'Z':
      type = "boolean";
      break;
    case 'V':
      type = "void";
      break;
    case 'L': {
      const size_t end = d.find(';', *pos);
      if (end == absl::string_view::npos || end == *pos) return std::nullopt;
      type = std::string(d.substr(*pos, end - *pos));
      std::replace(type.begin(), type.end(), '/', '.');
      *pos = end + 1;
      break;
    }
    default:
      return std::nullopt;
  }
  for (int i = 0; i < dims; ++i) type += "[]";
  return type;
}

std::string ExternalClassName(absl::string_view klass) {
  std::string out(klass);
  std::replace(out.begin(), out.end(), '/', '.');
  // A hidden class's name ends in "+0x<address>"; Klass::external_name() prints '/' there.
  if (const size_t plus = out.rfind("+0x"); plus != std::string::npos) out[plus] = '/';
  return out;
}

}  // namespace

std::optional<std::string> ExternalMethodName(absl::string_view klass, absl::string_view name,
                                              absl::string_view descriptor) {
  if (descriptor.empty() || descriptor[0] != '(') return std::nullopt;
  size_t pos = 1;
  std::vector<std::string> params;
  while (pos < descriptor.size() && descriptor[pos] != ')') {
    std::optional<std::string> p = ExternalType(descriptor, &pos);
    if (!p || *p == "void") return std::nullopt;
    params.push_back(*std::move(p));
  }
  if (pos >= descriptor.size()) return std::nullopt;
  ++pos;  // ')'
  std::optional<std::string> ret = ExternalType(descriptor, &pos);
  if (!ret || pos != descriptor.size()) return std::nullopt;
  return absl::StrCat(*ret, " ", ExternalClassName(klass), ".", name, "(",
                      absl::StrJoin(params, ", "), ")");
}

absl::StatusOr<MethodLayout> MethodLayout::From(const VmStructs& vm) {
  MethodLayout l;
  if (absl::Status s = vm.Find({VTCTX_METHOD_NAMES(VTCTX_FIND_ROW)}); !s.ok()) return s;
  return l;
}

absl::StatusOr<std::string> MethodNames::SymbolText(uint64_t symbol) {
  absl::StatusOr<uint16_t> length = ReadValue<uint16_t>(memory_, symbol + layout_.symbol_length);
  if (!length.ok()) return length.status();
  std::string text(*length, '\0');
  if (*length > 0) {
    if (absl::Status s = memory_.Read(symbol + layout_.symbol_body, text.data(), text.size());
        !s.ok()) {
      return s;
    }
  }
  return text;
}

absl::StatusOr<std::string> MethodNames::Name(uint64_t method) {
  if (auto it = names_.find(method); it != names_.end()) return it->second;
  const MethodLayout& l = layout_;
  absl::StatusOr<uint64_t> const_method = memory_.ReadU64(method + l.method_const);
  if (!const_method.ok()) return const_method.status();
  absl::StatusOr<uint64_t> pool = memory_.ReadU64(*const_method + l.const_constants);
  absl::StatusOr<uint16_t> name_index =
      ReadValue<uint16_t>(memory_, *const_method + l.const_name_index);
  absl::StatusOr<uint16_t> signature_index =
      ReadValue<uint16_t>(memory_, *const_method + l.const_signature_index);
  if (!pool.ok() || !name_index.ok() || !signature_index.ok()) {
    return absl::InvalidArgumentError("unreadable ConstMethod");
  }
  absl::StatusOr<int32_t> pool_length = ReadValue<int32_t>(memory_, *pool + l.pool_length);
  absl::StatusOr<uint64_t> holder = memory_.ReadU64(*pool + l.pool_holder);
  if (!pool_length.ok() || !holder.ok()) return absl::InvalidArgumentError("unreadable pool");
  if (*name_index == 0 || *signature_index == 0 || *name_index >= *pool_length ||
      *signature_index >= *pool_length) {
    return absl::InvalidArgumentError("method name outside its constant pool");
  }
  // The pool's entries follow the ConstantPool object, one word each; a name is a Symbol*.
  absl::StatusOr<uint64_t> name = memory_.ReadU64(*pool + l.pool_size + 8u * *name_index);
  absl::StatusOr<uint64_t> signature = memory_.ReadU64(*pool + l.pool_size + 8u * *signature_index);
  absl::StatusOr<uint64_t> klass = memory_.ReadU64(*holder + l.klass_name);
  if (!name.ok() || !signature.ok() || !klass.ok()) {
    return absl::InvalidArgumentError("unreadable method symbols");
  }
  absl::StatusOr<std::string> name_text = SymbolText(*name);
  absl::StatusOr<std::string> signature_text = SymbolText(*signature);
  absl::StatusOr<std::string> klass_text = SymbolText(*klass);
  if (!name_text.ok() || !signature_text.ok() || !klass_text.ok()) {
    return absl::InvalidArgumentError("unreadable method symbols");
  }
  if (name_text->empty() || klass_text->empty()) {
    return absl::InvalidArgumentError("empty method or class name");
  }
  std::optional<std::string> external =
      ExternalMethodName(*klass_text, *name_text, *signature_text);
  if (!external) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed method descriptor ", Printable(*signature_text, 100)));
  }
  names_[method] = *external;
  return *external;
}

absl::StatusOr<std::string> MethodNames::InterpretedName(uint64_t method, uint64_t bcp) {
  if (bcp == 0) {
    // AccessFlags' low 16 bits (a u2 since JDK 23, an int before: little-endian either way).
    absl::StatusOr<uint16_t> flags =
        ReadValue<uint16_t>(memory_, method + layout_.method_access_flags);
    if (!flags.ok()) return flags.status();
    if ((*flags & kAccNative) == 0) {
      return absl::InvalidArgumentError("no bytecode pointer in a frame of a non-native method");
    }
    return Name(method);
  }
  absl::StatusOr<uint64_t> const_method = memory_.ReadU64(method + layout_.method_const);
  if (!const_method.ok()) return const_method.status();
  absl::StatusOr<uint16_t> code_size =
      ReadValue<uint16_t>(memory_, *const_method + layout_.const_code_size);
  if (!code_size.ok()) return code_size.status();
  const uint64_t code = *const_method + layout_.const_method_size;
  if (code < *const_method || bcp < code || bcp - code >= *code_size) {
    return absl::InvalidArgumentError("the frame's bytecode pointer is not in its method");
  }
  return Name(method);
}

}  // namespace vtctx::reader
