/*
 * Which events belong to the target: its thread group, and a thread group leader that started
 * no later than `target_held_ns` (CLOCK_MONOTONIC, set before load). User space takes that time
 * once it holds the target and checks afterwards that the target is still alive
 * (targetProcess.h); a process that reuses the pid is created only after the target was reaped,
 * so its leader started later and none of its events passes here: not into the ring buffer, not
 * into a count, whether or not user space has seen the exit yet. (Stopping to consume at the
 * target's exit would not be enough: by the time user space wakes up, the pid may be reused and
 * the new process's events already in the ring.)
 *
 * group_leader->start_time is the leader's fork time, ktime_get_ns(); an exec by another thread
 * keeps it (de_thread copies it to the new leader). The rodata is defined here, for every program
 * that includes this header.
 */
#ifndef VTCTX_READER_TARGET_FILTER_BPF_H_
#define VTCTX_READER_TARGET_FILTER_BPF_H_

#include <bpf/bpf_helpers.h>

const volatile __u32 target_tgid = 0;
const volatile __u64 target_held_ns = 0;

/* `pid_tgid` is bpf_get_current_pid_tgid(). Other processes cost one compare; the target's events
 * two loads more (the current task is hot; its leader is the task itself for the main thread). */
static __always_inline bool vtctx_is_target(__u64 pid_tgid) {
  struct task_struct* task;

  if ((__u32)(pid_tgid >> 32) != target_tgid) return false;
  task = bpf_get_current_task_btf();
  return task->group_leader->start_time <= target_held_ns;
}

#endif /* VTCTX_READER_TARGET_FILTER_BPF_H_ */
