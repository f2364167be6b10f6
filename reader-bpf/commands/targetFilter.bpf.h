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
 *
 * An exec keeps the pid and the start time but replaces the program, its memory and maybe its
 * credentials (a setuid program runs as root): after it, reading "the target's" memory would read
 * the new program's. So nothing of the target passes once it began an exec: the task's in_execve
 * (set from the start of execve to its end, where the kernel has it) covers the exec itself, and
 * vtctx_target_exec (the sched_process_exec tracepoint, at the end of a successful exec) sets
 * vtctx_target_execed for good; user space reads it (and checks the held process itself,
 * targetProcess.h, for an exec before these programs were attached) and ends the run.
 */
#ifndef VTCTX_READER_TARGET_FILTER_BPF_H_
#define VTCTX_READER_TARGET_FILTER_BPF_H_

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

const volatile __u32 target_tgid = 0;
const volatile __u64 target_held_ns = 0;
bool vtctx_target_execed = false;

/* The target's thread group, as held (a reused pid is another process). */
static __always_inline bool vtctx_is_target_process(__u64 pid_tgid, struct task_struct* task) {
  if ((__u32)(pid_tgid >> 32) != target_tgid) return false;
  return task->group_leader->start_time <= target_held_ns;
}

/* `pid_tgid` is bpf_get_current_pid_tgid(). Other processes cost one compare; the target's events
 * a few loads more (the current task is hot; its leader is the task itself for the main thread). */
static __always_inline bool vtctx_is_target(__u64 pid_tgid) {
  struct task_struct* task;

  if ((__u32)(pid_tgid >> 32) != target_tgid) return false;
  task = bpf_get_current_task_btf();
  if (!vtctx_is_target_process(pid_tgid, task) || vtctx_target_execed) return false;
  if (bpf_core_field_exists(task->in_execve) && BPF_CORE_READ_BITFIELD(task, in_execve)) {
    return false;
  }
  return true;
}

/* The end of a successful exec, in the exec'ing task (by then the leader of its thread group). */
SEC("raw_tp/sched_process_exec")
int vtctx_target_exec(void* ctx) {
  __u64 id = bpf_get_current_pid_tgid();

  if (vtctx_is_target_process(id, bpf_get_current_task_btf())) vtctx_target_execed = true;
  return 0;
}

#endif /* VTCTX_READER_TARGET_FILTER_BPF_H_ */
