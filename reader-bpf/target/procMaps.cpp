#include "target/procMaps.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "target/boundedFile.h"
#include "target/errnoStatus.h"

namespace vtctx::reader {
namespace {

// Consumes a hex number from the front of `s`.
bool TakeHex(absl::string_view& s, uint64_t& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  if (ec != std::errc() || ptr == s.data()) return false;
  s.remove_prefix(static_cast<size_t>(ptr - s.data()));
  return true;
}

bool TakeDec(absl::string_view& s, uint64_t& out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 10);
  if (ec != std::errc() || ptr == s.data()) return false;
  s.remove_prefix(static_cast<size_t>(ptr - s.data()));
  return true;
}

bool TakeChar(absl::string_view& s, char c) {
  if (s.empty() || s.front() != c) return false;
  s.remove_prefix(1);
  return true;
}

void SkipSpaces(absl::string_view& s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
}

// "start-end perms offset major:minor inode   path"
std::optional<Mapping> ParseLine(absl::string_view line) {
  Mapping m;
  uint64_t major = 0, minor = 0;
  if (!TakeHex(line, m.start) || !TakeChar(line, '-') || !TakeHex(line, m.end)) return std::nullopt;
  SkipSpaces(line);
  if (line.size() < 4) return std::nullopt;
  m.readable = line[0] == 'r';
  m.executable = line[2] == 'x';
  line.remove_prefix(4);
  SkipSpaces(line);
  if (!TakeHex(line, m.offset)) return std::nullopt;
  SkipSpaces(line);
  if (!TakeHex(line, major) || !TakeChar(line, ':') || !TakeHex(line, minor)) return std::nullopt;
  SkipSpaces(line);
  if (!TakeDec(line, m.inode)) return std::nullopt;
  SkipSpaces(line);
  m.dev_major = static_cast<uint32_t>(major);
  m.dev_minor = static_cast<uint32_t>(minor);
  m.path = std::string(line);
  if (m.end <= m.start) return std::nullopt;
  return m;
}

}  // namespace

std::vector<Mapping> ParseMaps(absl::string_view text) {
  std::vector<Mapping> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    absl::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == absl::string_view::npos ? text.size() : nl + 1);
    if (auto m = ParseLine(line)) out.push_back(std::move(*m));
  }
  return out;
}

absl::StatusOr<std::vector<Mapping>> ReadMaps(pid_t pid) {
  return ReadMapsIn(absl::StrCat("/proc/", pid));
}

absl::StatusOr<std::vector<Mapping>> ReadMapsIn(absl::string_view proc_dir) {
  // 64 MiB: 65,530 mappings (the default vm.max_map_count) with 1 KiB paths.
  constexpr size_t kMaxMapsBytes = 64u << 20;
  absl::StatusOr<std::string> text = ReadKernelFile(absl::StrCat(proc_dir, "/maps"), kMaxMapsBytes);
  if (!text.ok()) return text.status();
  return ParseMaps(*text);
}

std::vector<MappedFile> GroupMappedFiles(const std::vector<Mapping>& maps) {
  std::vector<MappedFile> files;
  for (const Mapping& m : maps) {
    if (!m.IsFile()) continue;
    // A mapping at offset 0 starts a new instance; later mappings of the same file join the
    // newest instance of it (they follow it in address order).
    MappedFile* current = nullptr;
    for (auto it = files.rbegin(); it != files.rend(); ++it) {
      if (it->inode == m.inode && it->dev_major == m.dev_major && it->dev_minor == m.dev_minor &&
          it->path == m.path) {
        current = &*it;
        break;
      }
    }
    if (current == nullptr || m.offset == 0) {
      files.push_back({m.path, m.dev_major, m.dev_minor, m.inode, {}});
      current = &files.back();
    }
    current->mappings.push_back(m);
  }
  return files;
}

std::optional<uint64_t> LoadBias(const MappedFile& file, const std::vector<LoadSegment>& loads) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (const Mapping& m : file.mappings) {
    for (const LoadSegment& seg : loads) {
      // The mapping starts at file offset m.offset; the segment's first byte (file offset
      // seg.offset, link address seg.vaddr) lies in its first page.
      if (seg.offset < m.offset || seg.offset - m.offset >= page) continue;
      if ((seg.offset & ~(page - 1)) != m.offset) continue;
      return m.start + (seg.offset - m.offset) - seg.vaddr;
    }
  }
  return std::nullopt;
}

std::string MappedFileLink(absl::string_view proc_dir, const MappedFile& file) {
  const Mapping& first = file.mappings.front();
  return absl::StrFormat("%s/map_files/%x-%x", proc_dir, first.start, first.end);
}

}  // namespace vtctx::reader
