// /proc/<pid>/maps parsing and grouping of mappings into mapped ELF files with their load bias.
#ifndef VTCTX_READER_PROC_MAPS_H_
#define VTCTX_READER_PROC_MAPS_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "target/elfSymbols.h"

namespace vtctx::reader {

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;  // file offset of `start`
  uint32_t dev_major = 0;
  uint32_t dev_minor = 0;
  uint64_t inode = 0;
  bool readable = false;
  bool executable = false;
  std::string path;  // empty for anonymous mappings; "[heap]", "[vdso]", ... for special ones

  bool IsFile() const { return inode != 0 && !path.empty() && path[0] == '/'; }
};

// Parses the text of a maps file. Malformed lines are skipped (the kernel never writes them; the
// parser only has to be safe).
std::vector<Mapping> ParseMaps(absl::string_view text);

// Reads /proc/<pid>/maps. NotFound if the process does not exist, PermissionDenied if not ours.
absl::StatusOr<std::vector<Mapping>> ReadMaps(pid_t pid);
// The same under a process's /proc directory, e.g. a held one (targetProcess.h).
absl::StatusOr<std::vector<Mapping>> ReadMapsIn(absl::string_view proc_dir);

// One loaded instance of a file: its mappings in address order, starting with the one at file
// offset 0. A file loaded twice (dlmopen) gives two instances.
struct MappedFile {
  std::string path;
  uint32_t dev_major = 0;
  uint32_t dev_minor = 0;
  uint64_t inode = 0;
  std::vector<Mapping> mappings;
};

std::vector<MappedFile> GroupMappedFiles(const std::vector<Mapping>& maps);

// The kernel's link to the inode `file` maps, under the process directory `proc_dir`
// (<proc_dir>/map_files/<start>-<end>): the file the process maps, whatever path it names it by.
std::string MappedFileLink(absl::string_view proc_dir, const MappedFile& file);

// Load bias (runtime address minus link-time address) of `file`, from the first mapping that
// holds a PT_LOAD segment's first page. nullopt if no mapping matches a segment.
std::optional<uint64_t> LoadBias(const MappedFile& file, const std::vector<LoadSegment>& loads);

}  // namespace vtctx::reader

#endif  // VTCTX_READER_PROC_MAPS_H_
