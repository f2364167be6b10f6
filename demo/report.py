"""The demo's text output: tables of traces by sampled CPU, the slow requests' check, and the
comparison with naive OS-thread attribution."""

MAX_SLOW_ROWS = 10


def ms(value):
    return f"{value:,.1f}"


def print_top(title, result, n=6):
    print(title)
    print(f"  {'RANK':>4}  {'CPU_MS':>8}  {'SAMPLES':>7}  {'DUR_MS':>8}  {'CPU/DUR':>7}  "
          f"{'ENDPOINT':<16} TRACE_ID")
    for rank, row in enumerate(result["top"][:n], 1):
        ratio = row["cpu_ms"] / row["duration_ms"] if row["duration_ms"] else float("inf")
        flag = "" if row["fits"] else "  <- more CPU than its duration: impossible"
        print(f"  {rank:>4}  {ms(row['cpu_ms']):>8}  {row['samples']:>7}  "
              f"{ms(row['duration_ms']):>8}  {ratio:>7.2f}  {row['endpoint']:<16} "
              f"{row['trace_id']}{flag}")
    print()


def print_slow(vtctx, naive, period_ms):
    naive_cpu = {row["trace_id"]: row["cpu_ms"] for row in naive["top"]}
    print(f"Slow requests: does each one's sampled CPU fit inside it? (a request is one virtual "
          f"thread: CPU <= duration, samples inside [start, end])")
    print(f"  {'TRACE_ID':<32}  {'DUR_MS':>8}  {'MEASURED':>8}  {'VTCTX':>8}  {'INSIDE':>9}  "
          f"{'FITS':>4}  {'NAIVE':>8}  CARRIER start/resume/end")
    for row in vtctx["slow"][:MAX_SLOW_ROWS]:
        inside = f"{row['samples'] - row['outside']}/{row['samples']}"
        start, resume, end = row["carriers"]
        moved = "  (resumed on another carrier)" if resume != start else ""
        print(f"  {row['trace_id']:<32}  {ms(row['duration_ms']):>8}  "
              f"{ms(row['measured_cpu_ms']):>8}  {ms(row['cpu_ms']):>8}  {inside:>9}  "
              f"{'yes' if row['fits'] else 'NO':>4}  {ms(naive_cpu.get(row['trace_id'], 0.0)):>8}"
              f"  {start}/{resume}/{end}{moved}")
    if len(vtctx["slow"]) > MAX_SLOW_ROWS:
        print(f"  ... {len(vtctx['slow']) - MAX_SLOW_ROWS} more in summary.json")
    print(f"  (CPU in ms; MEASURED = the service's own CLOCK_THREAD_CPUTIME_ID of the carrier over "
          f"the request's CPU-bound stretches;\n   VTCTX / NAIVE = samples x {period_ms:.2f} ms "
          f"attributed to the request)")
    print()


def print_comparison(results, crosses, labels):
    """One column per attribution. crosses[name]: where that attribution puts the samples vtctx
    gives to slow requests."""
    names = list(results)
    print("The three attributions side by side:")
    print("  " + " " * 34 + "".join(f"{labels[n][0]:>16}" for n in names))
    print("  " + " " * 34 + "".join(f"{labels[n][1]:>16}" for n in names))
    rows = [
        ("tagged samples", lambda r, c: f"{r['tagged_samples']:,}"),
        ("  outside their request's window", lambda r, c: f"{r['samples_outside']:,}"),
        ("requests with samples", lambda r, c: f"{r['requests_with_samples']:,}"),
        ("  with CPU > duration", lambda r, c: f"{r['requests_over_duration']:,}"),
        ("slow requests' CPU, ms", lambda r, c: f"{r['slow_cpu_ms']:,.0f}"),
        ("slow requests' samples:", lambda r, c: ""),
        ("  same request", lambda r, c: share(c, "same_request")),
        ("  another request", lambda r, c: share(c, "other_request")),
        ("  untagged", lambda r, c: share(c, "untagged")),
    ]
    for label, cell in rows:
        print(f"  {label:<34}" + "".join(f"{cell(results[n], crosses[n]):>16}" for n in names))
    measured = results[names[0]]["slow_measured_cpu_ms"]
    print(f"  (the slow requests' measured CPU: {measured:,.0f} ms; their samples are those vtctx "
          f"attributes to them)")
    print()


def share(cross, key):
    total = sum(cross.values())
    return f"{cross[key] / total:.0%}" if total else "-"
