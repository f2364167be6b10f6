// Where a copy of the shim comes from, and which copies the agent serves (agent option
// shim_loaders). A copy is judged by the class loader that defined its AgentNatives class:
//
//   system          the system class loader: the class path or the module path;
//   OpenTelemetry   the copy the OpenTelemetry Java agent loaded as its extension
//                   (-Dotel.javaagent.extensions): the class its extensions class loader resolves
//                   io.vtctx.internal.AgentNatives to. That loader comes from the javaagent's
//                   bootstrap class io.opentelemetry.javaagent.bootstrap.AgentInitializer, looked
//                   up in the boot loader only (where -javaagent put it and no application class
//                   can be defined), through its public getExtensionsClassLoader();
//   other           any other class loader (a web application's, a plugin's).
//
// `operator` (the default) serves the first two: both are chosen by whoever started the JVM, on
// its command line. Why that is the operator's copy, and what no rule can stop once the JVM hands
// applications its Instrumentation: docs/design.md, "The shim's natives".
#ifndef VTCTX_AGENT_SHIM_ORIGIN_H_
#define VTCTX_AGENT_SHIM_ORIGIN_H_

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <vector>

#include "options.h"

namespace vtctx {

enum class ShimOrigin { kSystem, kOtelExtension, kOther };

// The origin of the shim whose AgentNatives class is `natives`.
ShimOrigin OriginOf(JNIEnv* jni, jclass natives);

// Whether `loaders` serves a shim of `origin`.
bool Serves(ShimLoaders loaders, ShimOrigin origin);

// VTCTX_SHIM_ORIGIN_* (vtctx/agentStatus.h), and a name for log lines.
uint32_t OriginBit(ShimOrigin origin);
const char* OriginName(ShimOrigin origin);

// The OpenTelemetry Java agent's extensions class loader (a local reference), or null: no such
// agent in the JVM, or it has not created the loader yet.
jobject OtelExtensionsLoader(JNIEnv* jni);

// The class loaders an attach looks in for shims (local references, none null): the system class
// loader, the OpenTelemetry Java agent's extensions loader if `loaders` may serve it and there is
// one, and, with a JVMTI environment, the loader of every loaded io.vtctx.internal.AgentLink class
// (a shim that has run: served or refused, it is counted). Without JVMTI (channel=identity) a
// shim of another loader is judged when it first probes.
std::vector<jobject> LoadersWithShims(jvmtiEnv* jvmti, JNIEnv* jni, ShimLoaders loaders);

}  // namespace vtctx

#endif  // VTCTX_AGENT_SHIM_ORIGIN_H_
