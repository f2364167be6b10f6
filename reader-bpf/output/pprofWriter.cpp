#include "output/pprofWriter.h"

#include <unistd.h>
#include <zlib.h>

#include <map>
#include <span>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "output/outputFile.h"
#include "target/untrustedText.h"
#include "vtctx/protobufWire.h"

namespace vtctx::reader {
namespace {

using vtctx::wire::ProtobufWriter;

// profile.proto field numbers.
enum ProfileField : uint32_t {
  kSampleType = 1,
  kSample = 2,
  kMapping = 3,
  kLocation = 4,
  kFunction = 5,
  kStringTable = 6,
  kTimeNanos = 9,
  kDurationNanos = 10,
  kPeriodType = 11,
  kPeriod = 12,
  kDefaultSampleType = 14,
};

// Deduplicated strings, functions, locations and mappings, numbered as pprof wants (ids from 1,
// string 0 = ""). Frames come as ids of the profile's texts: keys are numbers, not names.
class ProfileTables {
 public:
  explicit ProfileTables(const TextPool& texts) : texts_(texts), text_strings_(texts.size(), -1) {
    String("");
  }

  int64_t String(const std::string& s) {
    auto [it, added] = strings_.try_emplace(s, static_cast<int64_t>(string_order_.size()));
    if (added) string_order_.push_back(&it->first);
    return it->second;
  }

  // The location of one machine frame: `frames` (innermost first, every frame but the last
  // inlined into the next) as that many lines, the last the caller the others were inlined into.
  uint64_t Location(std::span<const PprofFrame> frames) {
    const PprofFrame& f = frames.back();
    std::vector<uint32_t> names;
    for (const PprofFrame& line : frames) names.push_back(line.name);
    const auto key = std::make_tuple(f.module, f.address, names);
    auto [it, added] = locations_.try_emplace(key, locations_.size() + 1);
    if (!added) return it->second;
    ProtobufWriter location;
    location.Uint64(1, it->second);         // id
    location.Uint64(2, Mapping(f.module));  // mapping_id
    location.Uint64(3, f.address);
    for (const PprofFrame& line_frame : frames) {
      ProtobufWriter line;
      line.Uint64(1, Function(line_frame));  // function_id
      location.Message(4, line);
    }
    messages_.Message(kLocation, location);
    return it->second;
  }

  // The functions, locations and mappings made so far, then the string table (field order does
  // not matter in protobuf).
  std::string Tables() const {
    ProtobufWriter strings;
    for (const std::string* s : string_order_) strings.String(kStringTable, *s);
    return messages_.data() + strings.data();
  }

 private:
  // The string table's index of text `id`.
  int64_t Text(uint32_t id) {
    if (text_strings_[id] < 0) text_strings_[id] = String(texts_.Text(id));
    return text_strings_[id];
  }

  uint64_t Function(const PprofFrame& f) {
    auto [it, added] = functions_.try_emplace({f.name, f.module}, functions_.size() + 1);
    if (!added) return it->second;
    ProtobufWriter function;
    function.Uint64(1, it->second);                             // id
    function.Uint64(2, static_cast<uint64_t>(Text(f.name)));    // name
    function.Uint64(3, static_cast<uint64_t>(Text(f.name)));    // system_name
    function.Uint64(4, static_cast<uint64_t>(Text(f.module)));  // filename
    messages_.Message(kFunction, function);
    return it->second;
  }

  uint64_t Mapping(uint32_t module) {
    auto [it, added] = mappings_.try_emplace(module, mappings_.size() + 1);
    if (!added) return it->second;
    const std::string& name = texts_.Text(module);
    ProtobufWriter mapping;
    mapping.Uint64(1, it->second);                                 // id
    mapping.Uint64(5, String(name.empty() ? "[unknown]" : name));  // filename
    mapping.Uint64(7, 1);                                          // has_functions
    messages_.Message(kMapping, mapping);
    return it->second;
  }

  const TextPool& texts_;
  std::vector<int64_t> text_strings_;  // by text id; -1: not in the string table yet
  std::map<std::string, int64_t> strings_;
  std::vector<const std::string*> string_order_;  // keys of strings_ (stable), by index
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> functions_;
  std::map<std::tuple<uint32_t, uint64_t, std::vector<uint32_t>>, uint64_t> locations_;
  std::map<uint32_t, uint64_t> mappings_;
  ProtobufWriter messages_;
};

ProtobufWriter ValueType(ProfileTables& t, const char* type, const char* unit) {
  ProtobufWriter v;
  v.Uint64(1, t.String(type));
  v.Uint64(2, t.String(unit));
  return v;
}

ProtobufWriter Sample(ProfileTables& t, const PprofSample& s, int64_t period_ns) {
  std::vector<uint64_t> locations;
  for (size_t begin = 0; begin < s.frames.size();) {
    size_t end = begin;
    while (end + 1 < s.frames.size() && s.frames[end].inlined) ++end;
    locations.push_back(
        t.Location(std::span<const PprofFrame>(s.frames).subspan(begin, end - begin + 1)));
    begin = end + 1;
  }
  const uint64_t values[] = {static_cast<uint64_t>(s.count),
                             static_cast<uint64_t>(s.count * period_ns)};
  ProtobufWriter sample;
  sample.PackedVarints(1, locations);
  sample.PackedVarints(2, values);
  for (const auto& [key, value] : s.labels) {
    ProtobufWriter label;
    label.Uint64(1, t.String(key));
    label.Uint64(2, t.String(value));
    sample.Message(3, label);
  }
  for (const auto& [key, value] : s.number_labels) {
    ProtobufWriter label;
    label.Uint64(1, t.String(key));
    label.Uint64(3, static_cast<uint64_t>(value));
    sample.Message(3, label);
  }
  return sample;
}

}  // namespace

std::string EncodePprof(const PprofProfile& profile) {
  ProfileTables tables(profile.texts);
  ProtobufWriter out;
  out.Message(kSampleType, ValueType(tables, "samples", "count"));
  out.Message(kSampleType, ValueType(tables, "cpu", "nanoseconds"));
  for (const PprofSample& s : profile.samples) {
    out.Message(kSample, Sample(tables, s, profile.period_ns));
  }
  out.Uint64(kTimeNanos, static_cast<uint64_t>(profile.time_nanos));
  out.Uint64(kDurationNanos, static_cast<uint64_t>(profile.duration_nanos));
  out.Message(kPeriodType, ValueType(tables, "cpu", "nanoseconds"));
  out.Uint64(kPeriod, static_cast<uint64_t>(profile.period_ns));
  out.Uint64(kDefaultSampleType, static_cast<uint64_t>(tables.String("cpu")));
  return out.data() + tables.Tables();
}

absl::Status WriteGzipFile(const std::string& path, const std::string& bytes) {
  absl::StatusOr<int> fd = OpenOutputFile(path);
  if (!fd.ok()) return fd.status();
  gzFile file = gzdopen(*fd, "wb");
  if (file == nullptr) {
    close(*fd);
    return absl::InternalError(absl::StrCat("cannot write ", Printable(path, 4096)));
  }
  const int written =
      bytes.empty() ? 0 : gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  const int closed = gzclose(file);
  if (written != static_cast<int>(bytes.size()) || closed != Z_OK) {
    return absl::InternalError(absl::StrCat("writing ", Printable(path, 4096), " failed"));
  }
  return absl::OkStatus();
}

}  // namespace vtctx::reader
