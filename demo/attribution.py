"""Who owns each CPU sample, two ways, and the checks that tell right from wrong.

vtctx: the sample's own trace id, read by vtctx-reader from the record the carrier's
  otel_thread_ctx_v1 pointed at when the sample fired (the virtual thread mounted there).
naive: what a profiler without vtctx reports. Trace-linked profilers for Java (e.g. Pyroscope's
  OpenTelemetry extension) keep one tag per OS thread: a span processor writes the root span's id
  into the OS thread it starts on and clears the OS thread it ends on, and a sample reads the
  tag of the OS thread it interrupted. Replayed here from the service's request log, which
  records the carrier (tid) each request started and ended on.
naive_last_started: the same without the clearing: each sample goes to the request that last
  started on its OS thread.

The checks use only the service's request log (ground truth written by the service itself) and
the samples, never one attribution to judge the other:
  - inside: a sample attributed to a request must lie inside that request's time window;
  - fits: a request is one virtual thread, which runs on at most one carrier at a time, so its
    sampled CPU cannot exceed its duration (allowing FIT_SLACK_PERIODS sampling periods of
    quantisation: a thread migrating between CPUs may catch one extra tick per CPU);
  - matches: the slow requests' sampled CPU must match the CPU the service measured on the carrier
    (CLOCK_THREAD_CPUTIME_ID over the stretches that cannot unmount) within CPU_RATIO_RANGE.
"""
import bisect
import collections
import json

FIT_SLACK_PERIODS = 2
# Sampled CPU also covers work outside the measured stretches (request parsing, the response
# write), so it may exceed the measured CPU a little; sampling noise is a few % at these counts.
CPU_RATIO_RANGE = (0.85, 1.25)
MIN_SLOW_REQUESTS = 3


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def vtctx_owners(samples):
    """The trace id each sample carries (None: no valid context)."""
    return [s["trace_id"] if s.get("valid") == 1 and s.get("trace_id") else None for s in samples]


def naive_owners(samples, requests, clear_at_end=True):
    """Replays per-OS-thread tags: at start_ns the request's trace is written into start_tid's
    tag; at end_ns end_tid's tag is cleared (if clear_at_end). Each sample gets its tid's tag at
    its ts_ns."""
    events = collections.defaultdict(list)  # tid -> [(ns, order, trace or None)]
    for r in requests:
        events[r["start_tid"]].append((r["start_ns"], 1, r["trace_id"]))
        if clear_at_end:
            events[r["end_tid"]].append((r["end_ns"], 0, None))
    timelines = {}
    for tid, evs in events.items():
        evs.sort(key=lambda e: (e[0], e[1]))
        timelines[tid] = ([e[0] for e in evs], [e[2] for e in evs])
    owners = []
    for s in samples:
        line = timelines.get(s["tid"])
        if not line:
            owners.append(None)
            continue
        i = bisect.bisect_right(line[0], s["ts_ns"]) - 1
        owners.append(line[1][i] if i >= 0 else None)
    return owners


def evaluate(samples, owners, requests, period_ns, is_slow, window):
    """Applies the checks to one attribution. window = (first_ns, last_ns) of the profile: only
    slow requests entirely inside it are compared with their measured CPU."""
    by_trace = {r["trace_id"]: r for r in requests}
    count = collections.Counter()
    outside = collections.Counter()
    unknown = 0
    for s, owner in zip(samples, owners):
        if owner is None:
            continue
        r = by_trace.get(owner)
        if r is None:
            unknown += 1
            continue
        count[owner] += 1
        if not r["start_ns"] <= s["ts_ns"] <= r["end_ns"]:
            outside[owner] += 1

    def row(trace_id, n):
        r = by_trace[trace_id]
        duration_ns = r["end_ns"] - r["start_ns"]
        cpu_ns = n * period_ns
        return {
            "trace_id": trace_id,
            "endpoint": r["endpoint"],
            "samples": n,
            "cpu_ms": cpu_ns / 1e6,
            "duration_ms": duration_ns / 1e6,
            "measured_cpu_ms": r["cpu_ns"] / 1e6,
            "outside": outside[trace_id],
            "fits": cpu_ns <= duration_ns + FIT_SLACK_PERIODS * period_ns,
            "slow": is_slow(r),
            "carriers": [r["start_tid"], r["resume_tid"], r["end_tid"]],
        }

    ranked = [row(t, n) for t, n in count.most_common()]
    slow_rows = [row(r["trace_id"], count[r["trace_id"]])
                 for r in sorted(requests, key=lambda r: r["start_ns"])
                 if is_slow(r) and window[0] <= r["start_ns"] and r["end_ns"] <= window[1]]
    tagged = sum(count.values()) + unknown
    return {
        "tagged_samples": tagged,
        "samples_inside": sum(count.values()) - sum(outside.values()),
        "samples_outside": sum(outside.values()),
        "samples_unknown_trace": unknown,
        "requests_with_samples": len(count),
        "requests_over_duration": sum(1 for x in ranked if not x["fits"]),
        "top": ranked,
        "slow": slow_rows,
        "slow_cpu_ms": sum(x["cpu_ms"] for x in slow_rows),
        "slow_measured_cpu_ms": sum(x["measured_cpu_ms"] for x in slow_rows),
    }


def failures(result):
    """Why an attribution is wrong (empty: it passed every check)."""
    reasons = []
    if len(result["slow"]) < MIN_SLOW_REQUESTS:
        reasons.append(f"only {len(result['slow'])} slow requests completed inside the profile "
                       f"(need {MIN_SLOW_REQUESTS} to judge)")
    if result["samples_outside"] or result["samples_unknown_trace"]:
        reasons.append(f"{result['samples_outside']} samples outside their request's time window, "
                       f"{result['samples_unknown_trace']} tagged with an unknown trace")
    if result["requests_over_duration"]:
        reasons.append(f"{result['requests_over_duration']} requests got more sampled CPU than "
                       f"their duration")
    measured = result["slow_measured_cpu_ms"]
    ratio = result["slow_cpu_ms"] / measured if measured else 0.0
    if not CPU_RATIO_RANGE[0] <= ratio <= CPU_RATIO_RANGE[1]:
        reasons.append(f"slow requests' sampled CPU is {ratio:.0%} of their measured CPU "
                       f"(allowed {CPU_RATIO_RANGE[0]:.0%}-{CPU_RATIO_RANGE[1]:.0%})")
    return reasons


def cross_check(vtctx, naive, slow_traces):
    """Where naive attribution puts the samples that vtctx attributes to slow requests."""
    same = other = untagged = 0
    for a, b in zip(vtctx, naive):
        if a not in slow_traces:
            continue
        if b is None:
            untagged += 1
        elif b == a:
            same += 1
        else:
            other += 1
    return {"same_request": same, "other_request": other, "untagged": untagged}
