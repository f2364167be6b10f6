// Which classes may call the natives that hand out memory: the package test of shimCaller.h (the
// frame and module checks need a JVM: java-shim's NativesAbuseTest).
#include <gtest/gtest.h>

#include "shimCaller.h"

namespace vtctx {
namespace {

TEST(ShimCaller, ClassesOfTheInternalPackageOnly) {
  EXPECT_TRUE(IsShimInternalClass("Lio/vtctx/internal/ThreadRecord;"));
  EXPECT_TRUE(IsShimInternalClass("Lio/vtctx/internal/TestNatives;"));
  // A lambda's hidden class is named after its host, in the host's package.
  EXPECT_TRUE(IsShimInternalClass("Lio/vtctx/internal/AgentLink$$Lambda.0x000001;"));

  EXPECT_FALSE(IsShimInternalClass("Lio/vtctx/ThreadContext;"));  // public API: not a caller
  EXPECT_FALSE(IsShimInternalClass("Lio/vtctx/internal/sub/Evil;"));
  EXPECT_FALSE(IsShimInternalClass("Lio/vtctx/internalx/Evil;"));
  EXPECT_FALSE(IsShimInternalClass("Ljdk/internal/reflect/DirectMethodHandleAccessor;"));
  EXPECT_FALSE(IsShimInternalClass("Ljava/lang/invoke/LambdaForm$DMH.0x0001;"));
  EXPECT_FALSE(IsShimInternalClass("Lio/vtctx/internal/;"));
  EXPECT_FALSE(IsShimInternalClass("Lio/vtctx/internal/ThreadRecord"));  // not a signature
  EXPECT_FALSE(IsShimInternalClass(""));
  EXPECT_FALSE(IsShimInternalClass("[Lio/vtctx/internal/ThreadRecord;"));
}

}  // namespace
}  // namespace vtctx
