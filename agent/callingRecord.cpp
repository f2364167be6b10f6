#include "callingRecord.h"

#include "agentState.h"
#include "eventHandlers.h"
#include "identityChannel.h"
#include "identityIndex.h"
#include "javaThreadIdentity.h"
#include "recordViews.h"
#include "threadState.h"

namespace vtctx {
namespace {

CallingRecord CarrierCallingRecord(JNIEnv* jni) {
  auto* record = static_cast<ThreadContextRecord*>(CurrentThreadRecord(Agent().jvmti, jni));
  if (record == nullptr) return {};
  jobject view = RecordView(jni, *g_pool, record);
  if (view == nullptr) return {};
  // First call on this thread, with thread_index=on: enter it in the index too (what
  // `vtctx-reader verify` compares with; ~0.8 us, hence an option). Only the record's own thread
  // writes its holder id word while it lives.
  if (Agent().options.thread_index &&
      g_pool->HolderThreadId(record).load(std::memory_order_relaxed) == 0) {
    if (auto who = CurrentJavaThreadIdentity(jni);
        who && IndexThreadRecord(*g_pool, who->id, record)) {
      if (ThreadState* state = CurrentThreadState()) Bump(state->counters.records_indexed);
    }
  }
  return {record, view};
}

}  // namespace

CallingRecord CallingThreadRecord(JNIEnv* jni) {
  if (!AgentActive()) return {};
  return Agent().options.channel == Channel::kIdentity ? IdentityCallingRecord(jni)
                                                       : CarrierCallingRecord(jni);
}

}  // namespace vtctx
