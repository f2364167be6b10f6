// JNI natives for the Java shim (class io.vtctx.internal.AgentNatives). The agent binds them
// itself to the shim's class (shimNatives.h: RegisterNatives, which checks every name and
// signature); none is exported, so HotSpot binds them to no other class. Without the agent (or
// for a class the agent does not serve) the first call throws UnsatisfiedLinkError, which the shim
// turns into "off".
//
// The declarations come from the header javac -h generates from AgentNatives.java at build time,
// and the table of what is registered is generated from the same header: a native renamed, added
// or retyped on one side fails the build (-Werror=missing-declarations) or the registration.
//
// None hands out more than the public API gives: no JDK internals, no memory but the calling
// thread's own record (and only to the shim's own classes: shimCaller.h), no view that outlives
// that record (recordViews.h), and every argument is checked (no native takes an address).
#include "jniNatives.h"

#include <jni.h>

#include "agentState.h"
#include "callingRecord.h"
#include "io_vtctx_internal_AgentNatives.h"
#include "shimCaller.h"
#include "stats.h"
#include "statusBlock.h"
#include "threadAttributes.h"

extern "C" {

// The calling thread's record address (virtual or platform thread), binding one on first use after
// a late attach; 0 if the agent is inactive or no record can be had. Stable for the thread's life.
JNIEXPORT jlong JNICALL Java_io_vtctx_internal_AgentNatives_currentRecord(JNIEnv* jni,
                                                                          jclass natives) {
  if (!vtctx::AgentActive()) return 0;
  if (!vtctx::CalledByShim(vtctx::Agent().jvmti, jni, natives, "currentRecord")) return 0;
  return reinterpret_cast<jlong>(vtctx::CallingThreadRecord(jni).record);
}

// A direct ByteBuffer over the calling thread's own record (record_size bytes, committed and owned
// by the thread for its life), or null: agent inactive, no record, or a caller that is not the
// shim (shimCaller.h). The record goes back to the pool only once the thread has ended and the
// buffer is garbage (recordViews.h): whoever keeps it can never reach another thread's record.
JNIEXPORT jobject JNICALL Java_io_vtctx_internal_AgentNatives_currentRecordBuffer(JNIEnv* jni,
                                                                                  jclass natives) {
  if (!vtctx::AgentActive()) return nullptr;
  if (!vtctx::CalledByShim(vtctx::Agent().jvmti, jni, natives, "currentRecordBuffer")) {
    return nullptr;
  }
  jobject view = vtctx::CallingThreadRecord(jni).view;
  if (view != nullptr) vtctx::CountPublishingThread();
  return view;
}

JNIEXPORT jint JNICALL Java_io_vtctx_internal_AgentNatives_recordSize(JNIEnv*, jclass) {
  return vtctx::AgentActive() ? static_cast<jint>(vtctx::g_pool->record_size()) : 0;
}

JNIEXPORT jboolean JNICALL Java_io_vtctx_internal_AgentNatives_isActive(JNIEnv*, jclass) {
  return vtctx::AgentActive() ? JNI_TRUE : JNI_FALSE;
}

// Attribute key index in the process context's key map, or -1 (see agent/threadAttributes.h).
JNIEXPORT jint JNICALL Java_io_vtctx_internal_AgentNatives_registerAttributeKey(JNIEnv* jni, jclass,
                                                                                jstring key) {
  return vtctx::RegisterAttributeKey(jni, key);
}

// Sets (or, with a null value, removes) one attribute of the calling thread's record; UTF-8 bytes
// stored or -1 (see agent/threadAttributes.h).
JNIEXPORT jint JNICALL Java_io_vtctx_internal_AgentNatives_setAttribute(JNIEnv* jni, jclass,
                                                                        jint key_index,
                                                                        jstring value) {
  return vtctx::SetThreadAttribute(jni, key_index, value);
}

// The agent's live counters as JSON (see agent/stats.h).
JNIEXPORT jstring JNICALL Java_io_vtctx_internal_AgentNatives_statsJson(JNIEnv* jni, jclass) {
  return jni->NewStringUTF(vtctx::StatsJson().c_str());
}

}  // extern "C"

namespace vtctx {

std::span<const JNINativeMethod> AgentNativeMethods() {
  static const JNINativeMethod kMethods[] = {
#include "jniNativesTable.inc"
  };
  return kMethods;
}

}  // namespace vtctx
