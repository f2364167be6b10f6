// Record sizes a pool accepts. The layout itself is pinned by the golden vectors
// (writerVectorsTest.cpp: the writer's bytes and the record view over
// protocol/vectors/records.vec).
#include <gtest/gtest.h>

#include "threadContextRecord.h"

namespace vtctx {
namespace {

TEST(RecordLayout, ValidRecordSizes) {
  EXPECT_TRUE(IsValidRecordSize(64));
  EXPECT_TRUE(IsValidRecordSize(128));
  EXPECT_TRUE(IsValidRecordSize(640));
  EXPECT_FALSE(IsValidRecordSize(0));
  EXPECT_FALSE(IsValidRecordSize(32));
  EXPECT_FALSE(IsValidRecordSize(100));
  EXPECT_FALSE(IsValidRecordSize(704));
}

}  // namespace
}  // namespace vtctx
