#!/bin/bash
# reproduce.sh [RUNS] - does a report's "to baseline" interval hold on the
# next run? The seed job (bench/reproduce.yaml: breakpoint.thread, 20
# threads, 56 loops, parallelism 2, 4 breakpoints against 0): `kscen
# calibrate -n CAL -r REPEAT` (default 5 and 40) seeds the history, then RUNS
# (default 10) runs of -r REPEAT back to back, each stored, as a reviewer
# rerunning a mail's command would. Counts the runs whose printed "to
# baseline" interval holds the median of the RUNS changes, and prints each
# run's change, interval and run-to-run allowance, with the load average.
# Not part of `make test`: it takes minutes; needs root (breakpoints).
#
# Environment: KSCEN (default ./kscen), CAL (5), REPEAT (40), NICE (unset).
set -u
runs=${1:-10}
cal=${CAL:-5}
repeat=${REPEAT:-40}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$(realpath "${KSCEN:-./kscen}")" "$tmp/kscen" || exit 2
kscen=$tmp/kscen
nice=()
[ -n "${NICE:-}" ] && nice=(nice -n "$NICE")

echo "# reproduce: calibrate -n $cal, then $runs runs, -r $repeat, nice ${NICE:-none}, $(date -u +%FT%TZ)"
echo "# calibrate: load $(cut -d' ' -f1 /proc/loadavg)"
"${nice[@]}" "$kscen" calibrate -q -n "$cal" -r "$repeat" -o "$tmp/res" "$here/reproduce.yaml" |
	sed 's/^/#   /' || exit 2
for i in $(seq "$runs"); do
	echo "run $i: load $(cut -d' ' -f1 /proc/loadavg)"
	"${nice[@]}" "$kscen" run -q -r "$repeat" -o "$tmp/res" --format json \
		"$here/reproduce.yaml" >"$tmp/r.$i.json" 2>/dev/null || { echo "run $i failed" >&2; exit 2; }
	sleep 1
done
python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys
d, runs = sys.argv[1], int(sys.argv[2])
ch = []
for i in range(1, runs + 1):
    j = [x for x in json.load(open(f"{d}/r.{i}.json"))["jobs"] if x["deltas"]["baseline"]][0]
    ch.append(j["deltas"]["baseline"])
mid = statistics.median(c["rel"] for c in ch)
held = 0
for i, c in enumerate(ch, 1):
    ok = c["ci_low"] <= mid <= c["ci_high"]
    held += ok
    allow = "in-run only" if c.get("run_to_run") is None else \
        f"run-to-run ±{100 * c['run_to_run']:.1f}% from {c['history_runs']} runs"
    print(f"  run {i:2}: to baseline {100 * c['rel']:+.1f}% [{100 * c['ci_low']:+.1f}% .. "
          f"{100 * c['ci_high']:+.1f}%] {c['verdict']} ({allow}) {'holds' if ok else 'MISSES'}")
print(f"# the median of the {runs} changes: {100 * mid:+.1f}%; held by {held} of {runs} printed intervals")
PY
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
