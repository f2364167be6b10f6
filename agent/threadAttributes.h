// The logic behind the shim's attribute natives (AgentNatives.registerAttributeKey and
// AgentNatives.setAttribute; exported from jniNatives.cpp). Never throws into the JVM: failures
// return -1 and log their reason once (per reason) with the vtctx: prefix.
#ifndef VTCTX_AGENT_THREAD_ATTRIBUTES_H_
#define VTCTX_AGENT_THREAD_ATTRIBUTES_H_

#include <jni.h>

namespace vtctx {

// Registers `key` in the process context's attribute key map (idempotent: a key keeps its first
// index). Returns the index (0..254) or -1 (agent inactive, no process context, null/empty/invalid
// key, longer than 255 UTF-8 bytes, or 255 keys already registered).
jint RegisterAttributeKey(JNIEnv* jni, jstring key);

// Sets attribute `key_index` of the calling thread's record to `value` (converted to UTF-8 and cut
// at a code point boundary to what the record has room for, at most 255 bytes), replacing its
// previous value; a null `value` removes the attribute. Returns the UTF-8 bytes stored (0 for a
// removal), or -1 if nothing could be stored (agent inactive, index not registered, no record, no
// room left; a previous value of the key is removed even then).
jint SetThreadAttribute(JNIEnv* jni, jint key_index, jstring value);

}  // namespace vtctx

#endif  // VTCTX_AGENT_THREAD_ATTRIBUTES_H_
