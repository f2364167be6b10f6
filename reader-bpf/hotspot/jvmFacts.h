// What a HotSpot JVM says about itself in its own memory, read through its VMStructs
// (vmStructs.h) without touching it: its release, and the values of boolean -XX flags. This works
// whatever the JVM's flags (no perf-data file needed: -XX:-UsePerfData) and sends it nothing.
#ifndef VTCTX_READER_JVM_FACTS_H_
#define VTCTX_READER_JVM_FACTS_H_

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hotspot/vmStructs.h"
#include "target/procMaps.h"
#include "target/processMemory.h"

namespace vtctx::reader {

// The VMStructs of the JVM whose mappings are `maps`, under its held /proc directory `proc_dir`:
// libjvm.so's exported table symbols are read from the mapped file itself (its map_files link:
// the inode the JVM mapped, whatever its paths say). NotFound without a libjvm.so mapping.
absl::StatusOr<VmStructs> OpenVmStructs(const std::string& proc_dir,
                                        const std::vector<Mapping>& maps, MemoryReader& memory);

struct JvmFacts {
  std::string release;  // Abstract_VM_Version::_s_vm_release, e.g. "25.0.1+8-LTS"; "" unknown
  int major = 0;        // Abstract_VM_Version::_vm_major_version; 0 unknown
  std::map<std::string, bool> flags;  // the boolean flags asked for that the JVM has
};

// Reads the release and the boolean flags `bool_flags` (a flag the JVM does not have is absent).
absl::StatusOr<JvmFacts> ReadJvmFacts(MemoryReader& memory, const VmStructs& vm,
                                      std::span<const absl::string_view> bool_flags);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_JVM_FACTS_H_
