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

}  // namespace
}  // namespace vtctx
