#include <gtest/gtest.h>

#include "target/procMaps.h"

namespace vtctx::reader {
namespace {

constexpr char kMaps[] =
    "55d0c0a00000-55d0c0a01000 r--p 00000000 fd:01 1234                       /usr/bin/app\n"
    "55d0c0a01000-55d0c0a02000 r-xp 00001000 fd:01 1234                       /usr/bin/app\n"
    "7f0000000000-7f0000001000 r--p 00000000 fd:01 99   /opt/lib with space/libx.so\n"
    "7f0000001000-7f0000003000 r-xp 00001000 fd:01 99   /opt/lib with space/libx.so\n"
    "7f0000010000-7f0000011000 r--p 00000000 fd:01 99   /opt/lib with space/libx.so\n"
    "7f0000020000-7f0000021000 rw-p 00000000 00:00 0 \n"
    "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n"
    "garbage line\n"
    "7f0000030000-7f0000031000 r--p 00000000 fd:01 77   /tmp/gone.so (deleted)\n";

TEST(ProcMaps, ParsesFields) {
  auto maps = ParseMaps(kMaps);
  ASSERT_EQ(maps.size(), 8u);  // the garbage line is skipped
  EXPECT_EQ(maps[1].start, 0x55d0c0a01000u);
  EXPECT_EQ(maps[1].offset, 0x1000u);
  EXPECT_TRUE(maps[1].executable);
  EXPECT_EQ(maps[1].dev_major, 0xfdu);
  EXPECT_EQ(maps[1].inode, 1234u);
  EXPECT_EQ(maps[2].path, "/opt/lib with space/libx.so");
  EXPECT_FALSE(maps[5].IsFile());
  EXPECT_EQ(maps[6].path, "[stack]");
  EXPECT_FALSE(maps[6].IsFile());
  EXPECT_EQ(maps[7].path, "/tmp/gone.so (deleted)");
}

TEST(ProcMaps, GroupsInstancesOfFiles) {
  auto files = GroupMappedFiles(ParseMaps(kMaps));
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].path, "/usr/bin/app");
  EXPECT_EQ(files[0].mappings.size(), 2u);
  // The second mapping at offset 0 of libx.so is a second instance (e.g. dlmopen).
  EXPECT_EQ(files[1].mappings.size(), 2u);
  EXPECT_EQ(files[2].path, files[1].path);
  EXPECT_EQ(files[2].mappings.size(), 1u);
}

TEST(ProcMaps, LoadBias) {
  auto files = GroupMappedFiles(ParseMaps(kMaps));
  // Shared library linked at 0: bias is the mapping start.
  std::vector<LoadSegment> lib = {{0, 0, 0x800, 0x800}, {0x1000, 0x1000, 0x1800, 0x1800}};
  EXPECT_EQ(LoadBias(files[1], lib), 0x7f0000000000u);
  // Non-PIE executable linked at its run address: bias 0.
  MappedFile exe{"/bin/x", 1, 1, 5, {{0x400000, 0x401000, 0, 1, 1, 5, true, false, "/bin/x"}}};
  std::vector<LoadSegment> exe_loads = {{0x400000, 0, 0x1000, 0x1000}};
  EXPECT_EQ(LoadBias(exe, exe_loads), 0u);
  // No segment matches any mapping.
  std::vector<LoadSegment> none = {{0x9000, 0x9000, 0x10, 0x10}};
  EXPECT_FALSE(LoadBias(files[1], none).has_value());
}

}  // namespace
}  // namespace vtctx::reader
