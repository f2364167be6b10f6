#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "loadedWriters.h"

namespace vtctx {
namespace {

// A second writer: the reader's fixture library, which defines otel_thread_ctx_v1 (TLSDESC) as the
// agent does. ctest gives its path.
std::string FixturePath() {
  const char* path = std::getenv("VTCTX_WRITER_FIXTURE");
  return path != nullptr ? path : "";
}

TEST(LoadedWriters, NoneButOurselves) {
  // This test binary defines otel_thread_ctx_v1 itself (tls-publish is linked in): not "other".
  EXPECT_EQ(FindOtherThreadContextWriter().path, "");
}

TEST(LoadedWriters, FindsAnotherLoadedWriterByItsPath) {
  const std::string fixture = FixturePath();
  ASSERT_FALSE(fixture.empty()) << "set VTCTX_WRITER_FIXTURE (ctest does)";
  void* handle = dlopen(fixture.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  const OtherWriter other = FindOtherThreadContextWriter();
  EXPECT_EQ(other.path, fixture);
  // Its TLSDESC descriptor, as the dynamic linker filled it in: a resolver function, then its
  // argument (a static TLS offset, or a pointer for dynamic TLS): never zero once bound.
  ASSERT_NE(other.descriptor, nullptr);
  const auto* words = static_cast<const uintptr_t*>(other.descriptor);
  EXPECT_NE(words[0], 0u);
  EXPECT_NE(words[1], 0u);
  dlclose(handle);
  EXPECT_EQ(FindOtherThreadContextWriter().path, "");
}

TEST(LoadedWriters, NothingToShareWithoutADescriptor) {
  EXPECT_NE(ShareThreadContextSlot(OtherWriter{"/x.so", nullptr}), "");
}

TEST(LoadedWriters, IgnoresObjectsThatOnlyUseOtherTlsSymbols) {
  // libc and libstdc++ define TLS symbols (errno's block, ...), none named otel_thread_ctx_v1.
  void* handle = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  EXPECT_EQ(FindOtherThreadContextWriter().path, "");
  dlclose(handle);
}

// The process contexts another writer may publish beside vtctx's own (writerWatch.h).
TEST(LoadedWriters, CountsOtherProcessContextMappings) {
  const std::string maps =
      "7f0000000000-7f0000001000 r--p 00000000 00:01 1234   /memfd:OTEL_CTX (deleted)\n"
      "7f0000002000-7f0000003000 rw-p 00000000 00:00 0      [anon:OTEL_CTX]\n"
      "7f0000004000-7f0000005000 rw-p 00000000 00:00 0      [anon:OTEL_CTX_OTHER]\n"
      "7f0000006000-7f0000007000 r-xp 00000000 08:01 42     /usr/lib/libOTEL_CTX.so\n";
  const void* own = reinterpret_cast<const void*>(0x7f0000000010);
  EXPECT_EQ(CountOtherContextMappings(maps, own), 1);  // the anonymous one
  EXPECT_EQ(CountOtherContextMappings(maps, nullptr), 2);
  EXPECT_EQ(CountOtherContextMappings("", own), 0);
  EXPECT_EQ(CountOtherContextMappings("garbage [anon:OTEL_CTX]", own), 0);  // no address: skipped
}

}  // namespace
}  // namespace vtctx
