"""The span-filtered flame graph of the demo: only the samples of the slow requests, selected by
their trace ids from the reader's folded output, with the carrier's frames folded into one, drawn
by the reader's renderer (vtctx_demo_flamegraph: `profile --format svg`'s, on a folded file)."""
import os
import subprocess

CONTINUATION_ENTRY = "StubRoutines (continuationstubs)"
CARRIER_FRAME = "[carrier thread, up to Continuation.run]"


def fold_carrier(frames):
    """A virtual thread's frames start above the continuation stub on its carrier's stack; the
    carrier's frames below it (ForkJoinPool worker, interpreted or compiled as the JIT went) are
    the same for every request, so the graph shows them as one frame."""
    for i in range(len(frames) - 1, -1, -1):
        if frames[i] == CONTINUATION_ENTRY:
            return [CARRIER_FRAME] + frames[i + 1:]
    return frames


def write(out, slow_traces, endpoint, n_slow, renderer):
    """Keeps the stacks of out/profile.folded whose trace is a slow request's (span filter), drops
    the trace/span root frames, folds the carrier frames, writes slow-requests.folded and renders
    it to slow-requests.svg with `renderer` (vtctx_demo_flamegraph). Returns the kept lines."""
    kept, samples = [], 0
    with open(os.path.join(out, "profile.folded"), encoding="utf-8") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            frames = stack.split(";")
            if frames[0].startswith("trace_") and frames[0][len("trace_"):] in slow_traces:
                kept.append(";".join(fold_carrier(frames[2:])) + " " + count)
                samples += int(count)
    folded = os.path.join(out, "slow-requests.folded")
    with open(folded, "w", encoding="utf-8") as f:
        f.write("\n".join(kept) + ("\n" if kept else ""))
    title = (f"CPU of the {n_slow} slow requests only ({endpoint}, {samples} samples), "
             f"selected by trace id: vtctx-reader profile --format folded")
    subprocess.run([renderer, folded, os.path.join(out, "slow-requests.svg"), title], check=True)
    return kept


def short(name):
    """Java perf-map names carry return and parameter types; Class.method is what is ranked."""
    if "(" not in name or name.startswith("["):
        return name
    head = name.split("(", 1)[0]
    if " " in head and "." in head:
        head = head.rsplit(" ", 1)[1]
    return head


def hot_frames(kept, n=3):
    """The service's own methods and String.format's formatter, by the share of the graph's
    samples whose stack holds them."""
    shares, total = {}, 0
    for line in kept:
        stack, _, count = line.rpartition(" ")
        samples = int(count)
        total += samples
        for name in dict.fromkeys(short(frame) for frame in stack.split(";")):  # once per stack
            if name.startswith("io.vtctx.demo.") or name == "java.util.Formatter.format":
                shares[name] = shares.get(name, 0) + samples
    top = sorted(shares.items(), key=lambda kv: -kv[1])[:n]
    return ", ".join(f"{name} {value / max(total, 1):.0%}" for name, value in top)
