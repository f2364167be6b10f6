// Test-only JNI library (libvtctx_carrier_probe.so): looks at the CARRIER's view of
// `otel_thread_ctx_v1`, the way an external reader would see it, independently of the agent's
// own bookkeeping.
//
// A JNI call runs entirely on one OS thread (a virtual thread is pinned while in native code), so
// each function below observes one consistent carrier: the one the calling thread is mounted on.
//
// The slot is found with dlsym() on the agent library, which for a TLS symbol returns the calling
// OS thread's instance; the agent's path is given once via init().
#include <dlfcn.h>
#include <jni.h>

#include <cstdint>
#include <cstring>

#include "recordWriter.h"
#include "threadContextRecord.h"

namespace {

void* g_agent = nullptr;
thread_local void** t_slot = nullptr;  // this OS thread's otel_thread_ctx_v1

void** Slot() {
  if (t_slot == nullptr && g_agent != nullptr) {
    t_slot = static_cast<void**>(dlsym(g_agent, "otel_thread_ctx_v1"));
  }
  return t_slot;
}

// Ids travel from Java as big-endian longs; the record holds them in W3C (network) byte order.
void TraceBytes(jlong hi, jlong lo, uint8_t (&out)[16]) {
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<uint8_t>(static_cast<uint64_t>(hi) >> (56 - 8 * i));
  for (int i = 0; i < 8; ++i)
    out[8 + i] = static_cast<uint8_t>(static_cast<uint64_t>(lo) >> (56 - 8 * i));
}
void SpanBytes(jlong span, uint8_t (&out)[8]) {
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<uint8_t>(static_cast<uint64_t>(span) >> (56 - 8 * i));
}

// Result codes shared with CarrierProbe.java.
enum : jint { kOk = 0, kNoSlot = 1, kWrongRecord = 2, kNotValid = 3, kWrongContent = 4, kNull = 5 };

}  // namespace

extern "C" {

// Opens the already-loaded agent (RTLD_NOLOAD: never loads a second copy). Returns false if the
// agent is not loaded in this JVM.
JNIEXPORT jboolean JNICALL Java_io_vtctx_test_CarrierProbe_init(JNIEnv* env, jclass, jstring path) {
  const char* p = env->GetStringUTFChars(path, nullptr);
  g_agent = dlopen(p, RTLD_NOW | RTLD_NOLOAD);
  env->ReleaseStringUTFChars(path, p);
  return g_agent != nullptr ? JNI_TRUE : JNI_FALSE;
}

// The record address this carrier currently publishes (0 = NULL, -1 = no slot).
JNIEXPORT jlong JNICALL Java_io_vtctx_test_CarrierProbe_publishedRecord(JNIEnv*, jclass) {
  void** slot = Slot();
  return slot ? reinterpret_cast<jlong>(*slot) : -1;
}

// Checks, in one native call (one carrier), that the carrier publishes `expected_record` and that
// the published record is valid and holds trace (hi,lo) / span. Returns a result code.
JNIEXPORT jint JNICALL Java_io_vtctx_test_CarrierProbe_check(JNIEnv*, jclass, jlong expected_record,
                                                             jlong trace_hi, jlong trace_lo,
                                                             jlong span) {
  void** slot = Slot();
  if (slot == nullptr) return kNoSlot;
  auto* r = static_cast<const vtctx::ThreadContextRecord*>(*slot);
  if (r == nullptr) return kNull;
  if (reinterpret_cast<jlong>(r) != expected_record) return kWrongRecord;
  if (r->valid != VTCTX_RECORD_VALID) return kNotValid;
  uint8_t trace[16], span_bytes[8];
  TraceBytes(trace_hi, trace_lo, trace);
  SpanBytes(span, span_bytes);
  if (std::memcmp(r->trace_id, trace, 16) != 0 || std::memcmp(r->span_id, span_bytes, 8) != 0) {
    return kWrongContent;
  }
  return kOk;
}

// Copies the published record's first n bytes (n <= out.length) into out; returns the number of
// bytes copied, 0 if nothing is published, -1 without a slot.
JNIEXPORT jint JNICALL Java_io_vtctx_test_CarrierProbe_readPublished(JNIEnv* env, jclass,
                                                                     jbyteArray out) {
  void** slot = Slot();
  if (slot == nullptr) return -1;
  if (*slot == nullptr) return 0;
  const jsize n = env->GetArrayLength(out);
  env->SetByteArrayRegion(out, 0, n, static_cast<const jbyte*>(*slot));
  return n;
}

// In one call (one carrier): copies the first out.length bytes of the record this carrier
// publishes into out and returns its address (0 = NULL: nothing copied, -1 = no slot).
JNIEXPORT jlong JNICALL Java_io_vtctx_test_CarrierProbe_snapshot(JNIEnv* env, jclass,
                                                                 jbyteArray out) {
  void** slot = Slot();
  if (slot == nullptr) return -1;
  void* record = *slot;
  if (record != nullptr) {
    env->SetByteArrayRegion(out, 0, env->GetArrayLength(out), static_cast<const jbyte*>(record));
  }
  return reinterpret_cast<jlong>(record);
}

// Writes a context into the record at `record` with the one native in-place writer.
JNIEXPORT void JNICALL Java_io_vtctx_test_CarrierProbe_write(JNIEnv*, jclass, jlong record,
                                                             jlong trace_hi, jlong trace_lo,
                                                             jlong span, jint flags) {
  uint8_t trace[16], span_bytes[8];
  TraceBytes(trace_hi, trace_lo, trace);
  SpanBytes(span, span_bytes);
  vtctx::WriteTraceContext(reinterpret_cast<vtctx::ThreadContextRecord*>(record), trace, span_bytes,
                           static_cast<uint8_t>(flags));
}

}  // extern "C"
