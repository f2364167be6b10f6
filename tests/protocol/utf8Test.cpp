#include <gtest/gtest.h>

#include <string>

#include "vtctx/utf8.h"

namespace vtctx {
namespace {

TEST(Utf8, Validation) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));  // é € 😀
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf"));                      // U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\x80"));                                 // lone continuation
  EXPECT_FALSE(IsValidUtf8("\xc3"));                                 // truncated
  EXPECT_FALSE(IsValidUtf8("\xe2\x82"));                             // truncated
  EXPECT_FALSE(IsValidUtf8("\xc0\x80"));          // overlong NUL (modified UTF-8)
  EXPECT_FALSE(IsValidUtf8("\xe0\x80\xaf"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate (CESU-8)
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("a\xc3("));
}

TEST(Utf8, PrefixNeverSplitsACharacter) {
  const std::string s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";  // 1 + 2 + 3 + 4 bytes
  const size_t expected[] = {0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10};
  for (size_t max = 0; max <= 11; ++max) {
    EXPECT_EQ(Utf8PrefixLength(s, max), expected[max]) << max;
    EXPECT_TRUE(IsValidUtf8(s.substr(0, Utf8PrefixLength(s, max))));
  }
}

std::string Convert(std::u16string_view in, bool more_follows, size_t capacity, bool* complete) {
  char out[64];
  const Utf16ToUtf8Result r = Utf16ToUtf8(reinterpret_cast<const uint16_t*>(in.data()), in.size(),
                                          more_follows, out, std::min<size_t>(capacity, 64));
  *complete = r.complete;
  return std::string(out, r.bytes);
}

TEST(Utf8, FromUtf16) {
  bool complete = false;
  EXPECT_EQ(Convert(u"http.route", false, 64, &complete), "http.route");
  EXPECT_TRUE(complete);
  EXPECT_EQ(Convert(u"é€😀", false, 64, &complete), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  EXPECT_TRUE(complete);
  EXPECT_EQ(Convert(std::u16string(1, u'\0'), false, 64, &complete), std::string(1, '\0'));
  // Unpaired surrogates become U+FFFD (valid UTF-8), never CESU-8.
  EXPECT_EQ(Convert(u"a\xd800"
                    u"b",
                    false, 64, &complete),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(Convert(u"\xdc00", false, 64, &complete), "\xef\xbf\xbd");
  EXPECT_EQ(Convert(u"\xd83d", false, 64, &complete), "\xef\xbf\xbd");  // at the real end
  // A high surrogate at the end of a cut window is half a pair: left out.
  EXPECT_EQ(Convert(u"a\xd83d", true, 64, &complete), "a");
  EXPECT_FALSE(complete);
  // Capacity stops before a character that does not fit whole.
  EXPECT_EQ(Convert(u"aé€", false, 5, &complete), "a\xc3\xa9");
  EXPECT_FALSE(complete);
  EXPECT_EQ(Convert(u"😀", false, 3, &complete), "");
  EXPECT_FALSE(complete);
  EXPECT_EQ(Convert(u"abc", true, 64, &complete), "abc");
  EXPECT_FALSE(complete);  // more of the string follows the window
}

}  // namespace
}  // namespace vtctx
