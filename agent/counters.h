// The agent's event counters: ONE table that makes the per-thread struct, the totals, the stats
// JSON (agent/stats.cpp) and the stats table in docs/agent.md (checked by unit
// StatsDoc.EveryCounterIsDocumented). Add a counter here and nowhere else.
//
// X(name, meaning): `name` is the C++ field and the JSON key.
#ifndef VTCTX_AGENT_COUNTERS_H_
#define VTCTX_AGENT_COUNTERS_H_

#define VTCTX_EVENT_COUNTERS(X)                                                              \
  X(mounts, "VirtualThreadMount events")                                                     \
  X(unmounts, "VirtualThreadUnmount events")                                                 \
  X(unpaired_mounts, "Mounts while another virtual thread was still mounted on the carrier") \
  X(unpaired_unmounts, "Unmounts with nothing mounted (a thread running at attach time)")    \
  X(vthread_ends, "VirtualThreadEnd events")                                                 \
  X(ends_without_record,                                                                     \
    "Ends of virtual threads that never got a record (late attach, bind=use)")               \
  X(records_created_virtual, "Records bound to virtual threads")                             \
  X(records_created_platform, "Records bound to platform threads")                           \
  X(records_lazily_created, "Of those, bound at first use rather than at a start event")     \
  X(records_indexed, "Records entered in the thread index (a thread's first publish)")       \
  X(records_returned, "Records returned to the pool after their thread ended")               \
  X(records_held_by_view,                                                                    \
    "Records whose thread ended while Java still held their view: returned once it is "      \
    "collected")                                                                             \
  X(records_unavailable, "Threads that needed a record and got none (pool exhausted): no context")

#endif  // VTCTX_AGENT_COUNTERS_H_
