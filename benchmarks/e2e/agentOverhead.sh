#!/usr/bin/env bash
# End-to-end cost of the agent on one carrier, side by side in one run:
#   no agent | empty-callback agents (the JVM's delivery cost) | vtctx
# Workloads: 1M Thread.yield() and start+join of 100k virtual threads. Each configuration runs in
# fresh JVMs, interleaved round by round (shuffled order), and reports the median over rounds of
# each JVM's median iteration.
#
#   agentOverhead.sh --java J --classes DIR --agent libvtctx.so --empty-agent libvtctx_empty_agent.so
#                    [--rounds 7] [--out results.md] [--smoke] [--configs a,b,...]
# --configs runs a subset (default: all) that includes none; a vtctx configuration is compared with
# its empty agent only if that is in the subset too.
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
    *) echo "agentOverhead.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
: "${java:?--java required}" "${classes:?--classes required}" "${agent:?--agent required}" "${empty:?--empty-agent required}"

yield_ops=1000000 churn_ops=100000 warmup=3 measured=7
if ((smoke)); then rounds=1 yield_ops=20000 churn_ops=2000 warmup=1 measured=2; fi

declare -A flags=(
  [none]=""
  [empty_capability]="-agentpath:$empty=events=none"
  [empty_same_events]="-agentpath:$empty=events=mount+end+thread"
  [empty_all_events]="-agentpath:$empty=events=mount+end+start+thread"
  [empty_same_events_tls]="-agentpath:$empty=events=mount+end+thread,tls=set"
  [vtctx]="-agentpath:$agent=log=error"
  [vtctx_bind_start]="-agentpath:$agent=log=error,bind=start"
  [vtctx_bind_use]="-agentpath:$agent=log=error,bind=use"
)
configs=(none empty_capability empty_same_events empty_all_events vtctx vtctx_bind_start vtctx_bind_use)
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
  for workload in yield churn; do
    ops=$yield_ops
    [[ $workload == churn ]] && ops=$churn_ops
    for c in $(printf '%s\n' "${configs[@]}" | shuf); do
      # shellcheck disable=SC2086
      line=$("$java" ${flags[$c]} -Xms256m -Xmx256m -XX:+UseParallelGC \
        -Djdk.virtualThreadScheduler.parallelism=1 -Djdk.virtualThreadScheduler.maxPoolSize=1 \
        -cp "$classes" io.vtctx.bench.Transitions "$workload" "$ops" "$warmup" "$measured" | grep '^result')
      median=$(sed -n 's/.* median_ms=\([0-9.]*\).*/\1/p' <<<"$line")
      cpu=$(sed -n 's/.* cpu_median_ms=\([0-9.]*\).*/\1/p' <<<"$line")
      [[ -n "$median" && -n "$cpu" ]] || { echo "agentOverhead.sh: $c/$workload produced no result" >&2; exit 1; }
      echo "$workload $c $median $cpu" >>"$tmp/samples"
      ((smoke)) || echo "round $r $workload $c wall ${median} ms cpu ${cpu} ms" >&2
    done
  done
done

python3 - "$tmp/samples" "$yield_ops" "$churn_ops" "$rounds" "$out" "${configs[*]}" <<'PY'
import statistics, sys
samples, yield_ops, churn_ops, rounds, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
configs = sys.argv[6].split()
wall, cpu = {}, {}
for line in open(samples):
    w, c, ms, cms = line.split()
    wall.setdefault((w, c), []).append(float(ms))
    cpu.setdefault((w, c), []).append(float(cms))
# The empty-callback agent that enables exactly the events each configuration enables.
same = {"empty_same_events_tls": "empty_same_events", "vtctx": "empty_same_events", "vtctx_bind_use": "empty_same_events", "vtctx_bind_start": "empty_all_events"}
def spread(values):
    return f"{min(values):.0f}..{max(values):.0f}"
rows = ["| workload | configuration | CPU ms (min..max) | CPU per op ns | CPU vs none | CPU vs its empty agent | wall ms | wall vs its empty agent |",
        "|---|---|---|---|---|---|---|---|"]
for w, ops in (("yield", yield_ops), ("churn", churn_ops)):
    cm = {c: statistics.median(cpu[(w, c)]) for c in configs}
    wm = {c: statistics.median(wall[(w, c)]) for c in configs}
    for c in configs:
        ref = same.get(c) if same.get(c) in cm else None
        vs_ref = f"{(cm[c] / cm[ref] - 1) * 100:+.1f}% (vs {ref})" if ref else ""
        wall_ref = f"{(wm[c] / wm[ref] - 1) * 100:+.1f}%" if ref else ""
        rows.append(f"| {w} ({ops:,}) | {c} | {cm[c]:.1f} ({spread(cpu[(w, c)])}) | {cm[c] * 1e6 / ops:.0f} | "
                    f"{cm[c] / cm['none']:.2f}x | {vs_ref} | {wm[c]:.1f} | {wall_ref} |")
table = "\n".join(rows)
print(f"rounds={rounds} (median over rounds of each JVM's median iteration; one carrier)")
print(table)
if out:
    with open(out, "w") as f:
        f.write(table + "\n")
PY
