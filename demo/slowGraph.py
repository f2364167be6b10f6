"""The span-filtered flame graph of the demo: only the samples of the slow requests, selected by
their trace ids from the reader's folded output, with the carrier's frames folded into one."""
import os

import flamegraph

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


def write(out, slow_traces, endpoint, n_slow):
    """Keeps the stacks of out/profile.folded whose trace is a slow request's (span filter), drops
    the trace/span root frames, folds the carrier frames, and writes slow-requests.folded and
    slow-requests.svg. Returns the graph's root."""
    kept, samples = [], 0
    with open(os.path.join(out, "profile.folded"), encoding="utf-8") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            frames = stack.split(";")
            if frames[0].startswith("trace_") and frames[0][len("trace_"):] in slow_traces:
                kept.append(";".join(fold_carrier(frames[2:])) + " " + count)
                samples += int(count)
    with open(os.path.join(out, "slow-requests.folded"), "w", encoding="utf-8") as f:
        f.write("\n".join(kept) + ("\n" if kept else ""))
    root = flamegraph.parse_folded(kept)
    root.name = f"{endpoint}: {n_slow} slow requests"
    title = (f"CPU of the slow requests only ({endpoint}, {samples} samples), "
             f"selected by trace id: vtctx-reader profile --format folded")
    with open(os.path.join(out, "slow-requests.svg"), "w", encoding="utf-8") as f:
        f.write(flamegraph.render(root, title))
    return root


def hot_frames(root, n=3):
    """The service's own methods and String.format's formatter, by the share of the graph's
    samples whose stack holds them."""
    shares = {}

    def walk(node, seen):
        name = flamegraph.short(node.name)
        if name not in seen and (name.startswith("io.vtctx.demo.")
                                 or name == "java.util.Formatter.format"):
            shares[name] = shares.get(name, 0) + node.value
            seen = seen | {name}
        for child in node.children.values():
            walk(child, seen)

    walk(root, frozenset())
    total = max(root.value, 1)
    top = sorted(shares.items(), key=lambda kv: -kv[1])[:n]
    return ", ".join(f"{name} {value / total:.0%}" for name, value in top)
