// HotSpot's performance-data file (`/tmp/hsperfdata_<user>/<pid>`, mapped by every HotSpot JVM
// unless -XX:-UsePerfData): what jps and jcmd read to list JVMs, read here without attaching. The
// reader uses three entries: sun.rt.jvmCapabilities (position 0: '1' when the attach mechanism is
// on, '0' with -XX:+DisableAttachMechanism), java.property.java.version and
// java.property.java.vm.name.
//
// Layout (HotSpot perfMemory.hpp, version 2): a 32-byte prologue {magic CA FE C0 C0 as bytes,
// byte_order (0 big, 1 little), major, minor, accessible, used i32, overflow i32, mod_time i64,
// entry_offset i32, num_entries i32}, then entries {entry_length i32, name_offset i32,
// vector_length i32, data_type u8, flags u8, units u8, variability u8, data_offset i32} with the
// NUL-terminated name and the data inside the entry. Parsing is bounds-checked: a file from a
// process the reader does not trust yields an error, never a read outside it.
#ifndef VTCTX_READER_HSPERF_DATA_H_
#define VTCTX_READER_HSPERF_DATA_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "absl/status/statusor.h"

namespace vtctx::reader {

struct HsPerfData {
  std::map<std::string, std::string> strings;  // byte vectors (data_type 'B'), up to the NUL
  std::map<std::string, int64_t> longs;        // scalar longs (data_type 'J')
};

// InvalidArgument (with the byte offset) for anything that is not a readable version-2 file.
absl::StatusOr<HsPerfData> ParseHsPerfData(std::span<const uint8_t> bytes);

// The major Java release of a java.version string ("25.0.1" -> 25, "21" -> 21, "1.8.0_402" -> 8);
// 0 if unparseable.
int JavaMajorVersion(const std::string& java_version);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_HSPERF_DATA_H_
