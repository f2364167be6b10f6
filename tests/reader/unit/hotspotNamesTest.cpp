// The table of names that JDK versions change (hotspot/hotspotNames.h): the first alternate a JVM
// has wins, whatever comes after it; none found is nullopt, and the refusal names every alternate.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>

#include "hotspot/hotspotNames.h"

namespace vtctx::reader {
namespace {

// A JVM that has exactly the names in `has` (type::field or symbol), each worth `value`.
auto JvmWith(std::set<std::string> has, uint64_t value) {
  return [has, value](const AlternateName& a) -> std::optional<uint64_t> {
    const std::string name =
        a.field.empty() ? std::string(a.name) : absl::StrCat(a.name, "::", a.field);
    if (!has.contains(name)) return std::nullopt;
    return value;
  };
}

TEST(HotspotNames, FirstAlternateTheJvmHasWins) {
  // JDK 25 with JVMCI: both tests named, the JNIEnv first.
  auto both = FirstNamed(kJavaThreadTestNames,
                         JvmWith({"JavaThread::_jni_environment", "_ZTV10JavaThread"}, 7));
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(static_cast<JavaThreadTest>(both->first), JavaThreadTest::kJniEnvironment);
  EXPECT_EQ(both->second, 7u);
  // Debian's JDK 27 (no JVMCI): the vtable.
  auto vtable = FirstNamed(kJavaThreadTestNames, JvmWith({"_ZTV10JavaThread"}, 9));
  ASSERT_TRUE(vtable.has_value());
  EXPECT_EQ(static_cast<JavaThreadTest>(vtable->first), JavaThreadTest::kVtable);
  // JDK 24+ name both ids: _monitor_owner_id wins; JDK 21-23 have _vthread only.
  auto owner = FirstNamed(kJavaThreadIdNames,
                          JvmWith({"JavaThread::_vthread", "JavaThread::_monitor_owner_id"}, 1));
  ASSERT_TRUE(owner.has_value());
  EXPECT_EQ(static_cast<JavaThreadId>(owner->first), JavaThreadId::kMonitorOwnerId);
  auto vthread = FirstNamed(kJavaThreadIdNames, JvmWith({"JavaThread::_vthread"}, 1));
  ASSERT_TRUE(vthread.has_value());
  EXPECT_EQ(static_cast<JavaThreadId>(vthread->first), JavaThreadId::kVthread);
  // The notification byte: JDK 26+'s name first, JDK 21-25's after it.
  auto jdk25 =
      FirstNamed(kJvmtiNotifyNames,
                 JvmWith({"_ZN27JvmtiVTMSTransitionDisabler25_VTMS_notify_jvmti_eventsE"}, 1));
  ASSERT_TRUE(jdk25.has_value());
  EXPECT_EQ(static_cast<JvmtiNotify>(jdk25->first), JvmtiNotify::kVtmsTransitionDisabler);
}

TEST(HotspotNames, NoneNamedIsRefusedNamingEveryAlternate) {
  EXPECT_FALSE(FirstNamed(kJavaThreadTestNames, JvmWith({"JavaThread::_vthread"}, 1)).has_value());
  EXPECT_EQ(DescribeAlternates(kJavaThreadTestNames),
            "JavaThread::_jni_environment (JDK 21+ built with JVMCI), _ZTV10JavaThread (every JDK "
            "whose libjvm.so keeps its .symtab)");
}

}  // namespace
}  // namespace vtctx::reader
