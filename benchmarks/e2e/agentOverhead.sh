#!/usr/bin/env bash
# End-to-end cost of the agent on one carrier, side by side in one run:
#   no agent | empty-callback agents (the JVM's delivery cost) | vtctx (channel=carrier) | identity
#   | either channel attached after the warm-up (attach_carrier, attach_identity: opt-in)
# Workloads (io.vtctx.bench.Transitions): 1M Thread.yield(); start+join of 100k virtual threads
# (churn); 500k hand-offs of a token between two virtual threads (pingpong); start+join of 100k
# virtual threads that each publish one context through the shim (publish_churn). Each
# configuration runs in fresh JVMs, interleaved round by round (shuffled order), and reports the
# median over rounds of each JVM's median iteration; ratios also as the range of the per-round
# ratios (every round runs every configuration once).
#
#   agentOverhead.sh --java J --classes DIR --agent libvtctx.so --empty-agent libvtctx_empty_agent.so
#                    [--rounds 7] [--out results.md] [--smoke] [--configs a,b,...]
#                    [--workloads yield,churn,pingpong,publish_churn]
# --configs runs a subset (default: all) that includes none; a vtctx configuration is compared with
# its empty agent only if that is in the subset too. With churn and publish_churn both run, a
# second table gives the cost per event against none: per yield, per hand-off, per thread, and per
# publishing thread beyond a thread that does not publish.
set -euo pipefail
rounds=7
out=""
smoke=0
while (($#)); do
  case $1 in
    --java) java=$2; shift 2 ;;
    --classes) classes=$2; shift 2 ;;
    --agent) agent=$2; shift 2 ;;
    --empty-agent) empty=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --smoke) smoke=1; shift ;;
    --configs) IFS=, read -r -a chosen <<<"$2"; shift 2 ;;
    --workloads) IFS=, read -r -a workloads <<<"$2"; shift 2 ;;
    *) echo "agentOverhead.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
: "${java:?--java required}" "${classes:?--classes required}" "${agent:?--agent required}" "${empty:?--empty-agent required}"

declare -A ops=([yield]=1000000 [churn]=100000 [pingpong]=500000 [publish_churn]=100000)
warmup=3 measured=7
if ((smoke)); then
  rounds=1 warmup=1 measured=2
  ops=([yield]=20000 [churn]=2000 [pingpong]=20000 [publish_churn]=2000)
fi
[[ -n ${workloads+x} ]] || workloads=(yield churn pingpong publish_churn)
for w in "${workloads[@]}"; do
  [[ -n ${ops[$w]+x} ]] || { echo "agentOverhead.sh: unknown workload $w" >&2; exit 2; }
done

self_attach="-Djdk.attach.allowAttachSelf=true -XX:+EnableDynamicAgentLoading"
declare -A flags=(
  [none]=""
  [empty_capability]="-agentpath:$empty=events=none"
  [empty_same_events]="-agentpath:$empty=events=mount+end+thread"
  [empty_all_events]="-agentpath:$empty=events=mount+end+start+thread"
  [empty_same_events_tls]="-agentpath:$empty=events=mount+end+thread,tls=set"
  [vtctx]="-agentpath:$agent=log=error"
  [vtctx_bind_start]="-agentpath:$agent=log=error,bind=start"
  [vtctx_bind_use]="-agentpath:$agent=log=error,bind=use"
  [identity]="-agentpath:$agent=log=error,channel=identity"
  # Loaded by an attach after the warm-up (what `vtctx-reader attach` and `--attach` leave behind).
  [attach_carrier]="$self_attach -Dbench.attachAgent=$agent=log=error"
  [attach_identity]="$self_attach -Dbench.attachAgent=$agent=log=error,channel=identity"
)
configs=(none empty_capability empty_same_events empty_all_events vtctx vtctx_bind_start vtctx_bind_use
  identity)
if [[ -n ${chosen+x} ]]; then
  for c in "${chosen[@]}"; do
    [[ -n ${flags[$c]+x} ]] || { echo "agentOverhead.sh: unknown configuration $c" >&2; exit 2; }
  done
  configs=("${chosen[@]}")
  [[ " ${configs[*]} " == *" none "* ]] || { echo "agentOverhead.sh: --configs must include none" >&2; exit 2; }
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for ((r = 1; r <= rounds; r++)); do
  for workload in "${workloads[@]}"; do
    for c in $(printf '%s\n' "${configs[@]}" | shuf); do
      # shellcheck disable=SC2086
      line=$("$java" ${flags[$c]} -Xms256m -Xmx256m -XX:+UseParallelGC \
        -Djdk.virtualThreadScheduler.parallelism=1 -Djdk.virtualThreadScheduler.maxPoolSize=1 \
        -cp "$classes" io.vtctx.bench.Transitions "$workload" "${ops[$workload]}" "$warmup" "$measured" \
        2>"$tmp/stderr" | grep '^result') || { cat "$tmp/stderr" >&2; line=""; }
      median=$(sed -n 's/.* median_ms=\([0-9.]*\).*/\1/p' <<<"$line")
      cpu=$(sed -n 's/.* cpu_median_ms=\([0-9.]*\).*/\1/p' <<<"$line")
      [[ -n "$median" && -n "$cpu" ]] || { echo "agentOverhead.sh: $c/$workload produced no result" >&2; exit 1; }
      echo "$r $workload $c $median $cpu" >>"$tmp/samples"
      ((smoke)) || echo "round $r $workload $c wall ${median} ms cpu ${cpu} ms" >&2
    done
  done
done

ops_list=""
for w in "${workloads[@]}"; do ops_list+="$w=${ops[$w]} "; done
python3 - "$tmp/samples" "$ops_list" "$rounds" "$out" "${configs[*]}" <<'PY'
import statistics, sys
samples, ops_list, rounds, out = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
configs = sys.argv[5].split()
ops = {w: int(n) for w, n in (item.split("=") for item in ops_list.split())}
wall, cpu = {}, {}  # (workload, config) -> {round: ms}
for line in open(samples):
    r, w, c, ms, cms = line.split()
    wall.setdefault((w, c), {})[r] = float(ms)
    cpu.setdefault((w, c), {})[r] = float(cms)
# The empty-callback agent that enables exactly the events each configuration enables.
same = {"empty_same_events_tls": "empty_same_events", "vtctx": "empty_same_events",
        "vtctx_bind_use": "empty_same_events", "vtctx_bind_start": "empty_all_events"}
med = lambda d: statistics.median(d.values())
def ratio(w, c, ref):
    """Median ratio and the range of the per-round ratios of CPU time."""
    per_round = [cpu[(w, c)][r] / cpu[(w, ref)][r] for r in cpu[(w, c)] if r in cpu[(w, ref)]]
    return (f"{med(cpu[(w, c)]) / med(cpu[(w, ref)]):.3f}x "
            f"({min(per_round):.2f}..{max(per_round):.2f})")
rows = ["| workload | configuration | CPU ms (min..max) | CPU per op ns | CPU vs none (per-round range) "
        "| CPU vs its empty agent | wall ms | wall vs its empty agent |",
        "|---|---|---|---|---|---|---|---|"]
for w, n in ops.items():
    cm = {c: med(cpu[(w, c)]) for c in configs}
    wm = {c: med(wall[(w, c)]) for c in configs}
    for c in configs:
        ref = same.get(c) if same.get(c) in cm else None
        vs_ref = f"{(cm[c] / cm[ref] - 1) * 100:+.1f}% (vs {ref})" if ref else ""
        wall_ref = f"{(wm[c] / wm[ref] - 1) * 100:+.1f}%" if ref else ""
        vs_none = "1.00x" if c == "none" else ratio(w, c, "none")
        rows.append(f"| {w} ({n:,}) | {c} | {cm[c]:.1f} ({min(cpu[(w, c)].values()):.0f}.."
                    f"{max(cpu[(w, c)].values()):.0f}) | {cm[c] * 1e6 / n:.0f} | {vs_none} | "
                    f"{vs_ref} | {wm[c]:.1f} | {wall_ref} |")
table = "\n".join(rows)
# Per event against none: the median over rounds of the per-round difference (each round's JVMs
# ran close together in time), with the range of the per-round differences.
def per_event(c, w, minus=None):
    diffs = []
    for r in cpu[(w, c)]:
        d = cpu[(w, c)][r] - cpu[(w, "none")][r]
        if minus:
            d -= cpu[(minus, c)][r] - cpu[(minus, "none")][r]
        diffs.append(d * 1e6 / ops[w])
    return f"{statistics.median(diffs):.0f} ({min(diffs):.0f}..{max(diffs):.0f})"
events = [(w, label) for w, label in (("yield", "per yield (unmount + mount)"),
                                      ("pingpong", "per hand-off (unmount + mount)"),
                                      ("churn", "per thread (start + end)")) if w in ops]
publishing = "churn" in ops and "publish_churn" in ops
head = [label for _, label in events] + (
    ["per publishing thread (start, publish, end)",
     "of which beyond a thread that does not publish (record, index, return)"] if publishing else [])
cost = ["| configuration | " + " | ".join(f"{h}, ns" for h in head) + " |",
        "|---" * (len(head) + 1) + "|"]
for c in configs:
    if c == "none":
        continue
    cells = [per_event(c, w) for w, _ in events]
    if publishing:
        cells += [per_event(c, "publish_churn"), per_event(c, "publish_churn", minus="churn")]
    cost.append(f"| {c} | " + " | ".join(cells) + " |")
costs = "\n".join(cost)
print(f"rounds={rounds} (median over rounds of each JVM's median iteration; one carrier)")
print(table)
print()
print("CPU ns per event against none: median (range) of the per-round differences")
print(costs)
if out:
    with open(out, "w") as f:
        f.write(table + "\n\n" + costs + "\n")
PY
