// Reads the golden vector files of protocol/vectors/ for the C++ tests (format: docs/protocol.md
// and each file's header). A test that reads no vector of a kind fails, so a renamed kind or an
// emptied file cannot pass silently.
#ifndef VTCTX_PROTOCOL_TESTING_VECTOR_FILE_H_
#define VTCTX_PROTOCOL_TESTING_VECTOR_FILE_H_

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace vtctx::testing {

struct Vector {
  std::string kind;
  std::string name;
  std::map<std::string, std::string> fields;

  const std::string& Field(const std::string& key) const {
    auto it = fields.find(key);
    if (it == fields.end()) throw std::runtime_error(name + ": no field " + key);
    return it->second;
  }
  // A hex field as bytes ('-' = none).
  std::string Bytes(const std::string& key) const { return FromHex(Field(key)); }
  long Int(const std::string& key) const { return std::stol(Field(key)); }

  static std::string FromHex(const std::string& hex) {
    if (hex == "-") return "";
    if (hex.size() % 2 != 0) throw std::runtime_error("odd hex: " + hex);
    std::string out;
    for (size_t i = 0; i < hex.size(); i += 2) {
      out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    return out;
  }
};

// `text` split at `sep` ('-' = an empty list).
inline std::vector<std::string> SplitList(const std::string& text, char sep) {
  std::vector<std::string> out;
  if (text == "-") return out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);) out.push_back(item);
  return out;
}

// The vectors of `kind` in protocol/vectors/<file> (VTCTX_PROTOCOL_VECTORS is the directory).
inline std::vector<Vector> ReadVectors(const std::string& file, const std::string& kind) {
  std::ifstream in(std::string(VTCTX_PROTOCOL_VECTORS) + "/" + file);
  if (!in) throw std::runtime_error("cannot read protocol/vectors/" + file);
  std::vector<Vector> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream words(line);
    Vector v;
    words >> v.kind >> v.name;
    if (v.kind != kind) continue;
    for (std::string word; words >> word;) {
      const size_t eq = word.find('=');
      if (eq == std::string::npos) throw std::runtime_error(v.name + ": bad field " + word);
      v.fields[word.substr(0, eq)] = word.substr(eq + 1);
    }
    out.push_back(std::move(v));
  }
  if (out.empty()) throw std::runtime_error("no '" + kind + "' vectors in " + file);
  return out;
}

}  // namespace vtctx::testing

#endif  // VTCTX_PROTOCOL_TESTING_VECTOR_FILE_H_
