#include <gtest/gtest.h>

#include <vector>

#include "extensionEvents.h"

namespace vtctx {
namespace {

struct Table {
  std::vector<std::vector<jvmtiParamInfo>> params;
  std::vector<jvmtiExtensionEventInfo> events;

  void Add(jint index, const char* id, std::vector<jvmtiParamInfo> p) {
    params.push_back(std::move(p));
    jvmtiExtensionEventInfo e{};
    e.extension_event_index = index;
    e.id = const_cast<char*>(id);
    e.param_count = static_cast<jint>(params.back().size());
    events.push_back(e);
  }
  const jvmtiExtensionEventInfo* Data() {
    for (size_t i = 0; i < events.size(); ++i) events[i].params = params[i].data();
    return events.data();
  }
};

jvmtiParamInfo Param(jvmtiParamKind kind, jvmtiParamTypes type) {
  jvmtiParamInfo p{};
  p.kind = kind;
  p.base_type = type;
  return p;
}

std::vector<jvmtiParamInfo> Good() {
  return {Param(JVMTI_KIND_IN_PTR, JVMTI_TYPE_JNIENV), Param(JVMTI_KIND_IN, JVMTI_TYPE_JTHREAD)};
}

TEST(ExtensionEvents, FindsBothByIdWhateverTheirIndex) {
  Table t;
  t.Add(46, "com.sun.hotspot.events.ClassUnload", {});
  t.Add(48, kMountEventId, Good());
  t.Add(47, kUnmountEventId, Good());
  MountEventIndexes out;
  EXPECT_EQ(FindMountEvents(t.Data(), 3, &out), "");
  EXPECT_EQ(out.mount, 48);
  EXPECT_EQ(out.unmount, 47);
}

TEST(ExtensionEvents, MissingEventIsAnError) {
  Table t;
  t.Add(48, kMountEventId, Good());
  MountEventIndexes out;
  const std::string error = FindMountEvents(t.Data(), 1, &out);
  EXPECT_NE(error.find(kUnmountEventId), std::string::npos) << error;
  EXPECT_EQ(out.mount, -1);  // untouched on failure
  EXPECT_NE(FindMountEvents(nullptr, 0, &out), "");
}

TEST(ExtensionEvents, SignatureMismatchIsAnError) {
  {
    Table t;
    t.Add(48, kMountEventId, {Param(JVMTI_KIND_IN_PTR, JVMTI_TYPE_JNIENV)});
    t.Add(47, kUnmountEventId, Good());
    MountEventIndexes out;
    EXPECT_NE(FindMountEvents(t.Data(), 2, &out).find("1 parameters, expected 2"),
              std::string::npos);
  }
  {
    Table t;
    t.Add(48, kMountEventId, Good());
    t.Add(47, kUnmountEventId,
          {Param(JVMTI_KIND_IN_PTR, JVMTI_TYPE_JNIENV), Param(JVMTI_KIND_IN, JVMTI_TYPE_JOBJECT)});
    MountEventIndexes out;
    EXPECT_NE(FindMountEvents(t.Data(), 2, &out).find("parameter 2 is not jthread"),
              std::string::npos);
  }
  {
    Table t;
    t.Add(48, kMountEventId,
          {Param(JVMTI_KIND_IN, JVMTI_TYPE_JTHREAD), Param(JVMTI_KIND_IN_PTR, JVMTI_TYPE_JNIENV)});
    t.Add(47, kUnmountEventId, Good());
    MountEventIndexes out;
    EXPECT_NE(FindMountEvents(t.Data(), 2, &out).find("parameter 1 is not JNIEnv*"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace vtctx
