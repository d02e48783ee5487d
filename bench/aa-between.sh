#!/bin/bash
# aa-between.sh [RUNS] - A/A between runs of real jobs: RUNS (default 14)
# runs of bench/aa-between.yaml (syscall.basic, exec, breakpoint.thread; ten
# jobs), each stored and compared with the last run as `kscen run` does by
# default. Nothing changes between them, so every "vs last run" verdict
# (worse or better) is a false positive. Counted over the comparisons whose
# job had at least 3 earlier runs; "cannot tell" is counted apart; and no
# report may print a run-to-run allowance of ±0.0%. Each run's load average
# is printed beside it. Not part of `make test`: it takes minutes.
#
# Environment: KSCEN (default ./kscen), NICE (unset; -20 as root shields the
# samples from the rest of a busy machine), REPEAT (the scenario's 5).
set -u
runs=${1:-14}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$(realpath "${KSCEN:-./kscen}")" "$tmp/kscen" || exit 2
kscen=$tmp/kscen
nice=()
[ -n "${NICE:-}" ] && nice=(nice -n "$NICE")
repeat=()
[ -n "${REPEAT:-}" ] && repeat=(-r "$REPEAT")

echo "# $runs runs of aa-between.yaml, repeat ${REPEAT:-5}, nice ${NICE:-none}, $(date -u +%FT%TZ)"
zero=0
for i in $(seq "$runs"); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	"${nice[@]}" "$kscen" run -q -o "$tmp/res" "${repeat[@]}" "$here/aa-between.yaml" \
		>"$tmp/out.$i" 2>"$tmp/err.$i"
	rc=$?
	# exit 3: a job failed (a timeout on a loaded machine); the others count
	[ $rc = 3 ] && echo "run $i: a job failed: $(grep -h 'FAILED' "$tmp/out.$i" | head -n 2)"
	[ $rc = 0 ] || [ $rc = 3 ] || { echo "run $i: exit $rc" >&2; cat "$tmp/err.$i" >&2; exit 2; }
	grep -q '±0\.0%' "$tmp/out.$i" && zero=$((zero + 1))
	f=$(sed -n 's/^results: //p' "$tmp/out.$i")
	"$kscen" report --format json "$f" >"$tmp/json.$i" 2>/dev/null
	echo "run $i: load $load"
	sleep 1	# one stored run a second: names are timestamps
done
python3 - "$tmp" "$runs" "$zero" <<'PY'
import json, sys
d, runs, zero = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = flagged = cannot = own = pool = 0
hist = {}
for i in range(1, runs + 1):
    for j in json.load(open(f"{d}/json.{i}"))["jobs"]:
        prior = hist.get(j["id"], 0)
        hist[j["id"]] = prior + 1
        last = j["deltas"]["last"]
        if not last or prior < 3:
            continue
        n += 1
        if last["verdict"] == "cannot tell":
            cannot += 1
            continue
        own += last["drift"] == "own"
        pool += last["drift"] == "pool"
        if last["verdict"] in ("worse", "better"):
            flagged += 1
            print(f"  flagged: run {i} {j['id']}: {last['verdict']} {100 * last['rel']:+.1f}% "
                  f"[{100 * last['ci_low']:+.1f}% .. {100 * last['ci_high']:+.1f}%] p={last['p']:.3g}")
print(f"# comparisons with >= 3 earlier runs: {n}; flagged {flagged} ({100 * flagged / max(n, 1):.1f}%); "
      f"cannot tell {cannot}; allowance from the job's own segment {own}, pooled {pool}")
print(f"# reports printing ±0.0%: {zero} of {runs}")
PY
echo "# load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
