// The rules that name inlined Java frames from an nmethod's metadata (hotspot/scopeDecoding.h,
// hotspot/nmethodScopes.h): HotSpot's compressed stream, the scope chain, the PcDesc lookups; on
// bytes recorded from a real JVM and on malformed ones.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "hotspot/scopeDecoding.h"

namespace vtctx::reader {
namespace {

// Recorded from Temurin 25.0.1 (tests/reader/jvm/InlineChain.java, -XX:+PreserveFramePointer):
// the C2 nmethod of InlineChain.lambda$main$0()V, 336 bytes of code, with a, b, c and leaf
// inlined. Its PcDescs (pc offset, scope offset) and scopes data, the nmethod's metadata being
// 1 lambda$main$0, 2 a, 3 b, 4 c, 5 leaf. Java 21.0.8 compiled the same scopes bytes, with its
// PcDescs at other pc offsets (kLambdaPcs21).
const std::vector<PcDescEntry> kLambdaPcs = {{-1, 0}, {190, 47}, {236, 53}, {292, 67}, {337, 0}};
const std::vector<PcDescEntry> kLambdaPcs21 = {{-1, 0}, {193, 47}, {242, 53}, {296, 67}, {345, 0}};
constexpr char kLambdaScopes[] =
    "ff030101010103020101d50101020c0207010d0303020101130403020101190506020101050201019502d11d01d4"
    "081f061725010101021107010103020101050201420102073c410100000000000000";

std::vector<uint8_t> Bytes(absl::string_view hex) {
  const std::string raw = absl::HexStringToBytes(hex);
  return {raw.begin(), raw.end()};
}

std::vector<uint32_t> Ints(const std::vector<uint8_t>& bytes, size_t count) {
  ScopeStream s(bytes, 0);
  std::vector<uint32_t> out;
  for (size_t i = 0; i < count; ++i) {
    std::optional<uint32_t> v = s.ReadInt();
    if (!v) break;
    out.push_back(*v);
  }
  return out;
}

TEST(ScopeStream, DecodesUnsigned5AndZeroRuns) {
  // One byte below 192 is the value + 1; larger values continue with 64-weighted digits.
  EXPECT_EQ(Ints(Bytes("01020bbf"), 4), (std::vector<uint32_t>{0, 1, 10, 190}));
  // 191 = 0xc0 then digit 0 (byte 1); 191 + 64 * 1 = 255: c0 02.
  EXPECT_EQ(Ints(Bytes("c001c002"), 2), (std::vector<uint32_t>{191, 255}));
  // A run of zeros: 0, then how many.
  EXPECT_EQ(Ints(Bytes("000403"), 5), (std::vector<uint32_t>{0, 0, 0, 0, 2}));
  // Five bytes at most: the fifth ends the number whatever its value.
  EXPECT_EQ(Ints(Bytes("c0c0c0c003"), 1).size(), 1u);
}

TEST(ScopeStream, RefusesTruncatedAndOverflowingNumbers) {
  EXPECT_TRUE(Ints(Bytes("c0c0"), 1).empty());        // continues past the end
  EXPECT_TRUE(Ints(Bytes("c000"), 1).empty());        // a zero byte inside a number
  EXPECT_TRUE(Ints(Bytes("00"), 1).empty());          // a zero run without its count
  EXPECT_TRUE(Ints(Bytes("0000"), 1).empty());        // a zero run of none
  EXPECT_TRUE(Ints(Bytes("ffffffffff"), 1).empty());  // more than 32 bits
  // A failed stream stays failed.
  const std::vector<uint8_t> truncated = Bytes("c0");
  ScopeStream s(truncated, 0);
  EXPECT_FALSE(s.ReadInt());
  EXPECT_FALSE(s.ReadInt());
}

TEST(ScopeChain, DecodesTheRecordedInlinedChain) {
  const std::vector<uint8_t> scopes = Bytes(kLambdaScopes);
  // The PcDesc at 190 (leaf's loop poll): leaf <- c <- b <- a <- lambda$main$0.
  absl::StatusOr<std::vector<ScopeRecord>> chain = DecodeScopeChain(scopes, 47);
  ASSERT_TRUE(chain.ok()) << chain.status();
  std::vector<std::pair<uint32_t, int32_t>> methods;
  for (const ScopeRecord& r : *chain) methods.emplace_back(r.method_index, r.bci);
  EXPECT_EQ(methods,
            (std::vector<std::pair<uint32_t, int32_t>>{{5, 21}, {4, 4}, {3, 1}, {2, 1}, {1, 10}}));
  EXPECT_EQ(chain->back().sender_offset, 0u);
  // The lambda's own polls: one scope.
  chain = DecodeScopeChain(scopes, 53);
  ASSERT_TRUE(chain.ok());
  ASSERT_EQ(chain->size(), 1u);
  EXPECT_EQ((*chain)[0].method_index, 1u);
  EXPECT_EQ((*chain)[0].bci, 15);
  // Offset 0: no scope recorded.
  chain = DecodeScopeChain(scopes, 0);
  ASSERT_TRUE(chain.ok());
  EXPECT_TRUE(chain->empty());
}

TEST(ScopeChain, RefusesMalformedChains) {
  const std::vector<uint8_t> scopes = Bytes(kLambdaScopes);
  EXPECT_FALSE(DecodeScopeChain(scopes, static_cast<uint32_t>(scopes.size())).ok());
  EXPECT_FALSE(DecodeScopeChain(scopes, 1u << 30).ok());
  // A record naming itself, or a later record, as its caller would loop: refused.
  EXPECT_FALSE(DecodeScopeChain(Bytes("ff020202"), 1).ok());    // sender 1 at offset 1
  EXPECT_FALSE(DecodeScopeChain(Bytes("ff05020202"), 1).ok());  // sender 4 after it
  EXPECT_FALSE(DecodeScopeChain(Bytes("ff0102"), 1).ok());      // truncated record
  // A well-formed chain deeper than kMaxScopeDepth: each record names the one before it.
  std::vector<uint8_t> deep = {0xff};
  for (size_t i = 0; i <= kMaxScopeDepth; ++i) {
    const uint32_t sender = i == 0 ? 0 : static_cast<uint32_t>(1 + 3 * (i - 1));
    deep.insert(deep.end(), {static_cast<uint8_t>(sender + 1), 2, 2});
  }
  EXPECT_FALSE(DecodeScopeChain(deep, static_cast<uint32_t>(1 + 3 * kMaxScopeDepth)).ok());
  EXPECT_TRUE(DecodeScopeChain(deep, static_cast<uint32_t>(1 + 3 * (kMaxScopeDepth - 1))).ok());
}

TEST(PcDescLookup, ExactForReturnAddressesAtOrAfterForTheSampledPc) {
  // A return address is described exactly at its offset, nowhere else.
  EXPECT_EQ(FindPcDesc(kLambdaPcs, 236, false)->scope_offset, 53);
  EXPECT_EQ(FindPcDesc(kLambdaPcs, 235, false), nullptr);
  // A sampled pc: the first PcDesc at or after it, one at the pc itself included.
  EXPECT_EQ(FindPcDesc(kLambdaPcs, 100, true)->scope_offset, 47);  // in leaf's loop
  EXPECT_EQ(FindPcDesc(kLambdaPcs, 191, true)->scope_offset, 53);  // just past leaf's poll
  EXPECT_EQ(FindPcDesc(kLambdaPcs, 337, true)->pc_offset, 337);    // the end sentinel
  EXPECT_EQ(FindPcDesc(kLambdaPcs, 400, true), nullptr);
  EXPECT_EQ(FindPcDesc(kLambdaPcs21, 193, true)->scope_offset, 47);  // at leaf's poll: leaf's
  EXPECT_EQ(FindPcDesc(kLambdaPcs21, 194, true)->scope_offset, 53);
  // An unsorted table answers nothing.
  const std::vector<PcDescEntry> unsorted = {{10, 1}, {5, 2}};
  EXPECT_EQ(FindPcDesc(unsorted, 10, false), nullptr);
}

}  // namespace
}  // namespace vtctx::reader
