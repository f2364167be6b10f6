// The JVM's system properties as the agent can read them: through JVMTI (the carrier channel; at
// Agent_OnLoad those of the command line are set) or, without JVMTI (channel=identity), through
// JNI from a thread attached to the running JVM (System.getProperty).
#ifndef VTCTX_AGENT_SYSTEM_PROPERTY_H_
#define VTCTX_AGENT_SYSTEM_PROPERTY_H_

#include <jni.h>
#include <jvmti.h>

#include <functional>
#include <optional>
#include <string>

namespace vtctx {

// A property's value, or nullopt if it is not set or cannot be read (yet).
using PropertyReader = std::function<std::optional<std::string>(const char* name)>;

PropertyReader JvmtiProperties(jvmtiEnv* jvmti);
PropertyReader JniProperties(JNIEnv* jni);  // `jni` must be the calling thread's
// Before the VM runs Java code, without JVMTI: none can be read.
PropertyReader NoProperties();

// "java.version", else "java.vm.version" (java.version is not set yet at Agent_OnLoad), else
// "unknown".
std::string JavaVersion(const PropertyReader& properties);

}  // namespace vtctx

#endif  // VTCTX_AGENT_SYSTEM_PROPERTY_H_
