#!/bin/bash
# aa-detect.sh [TRIALS] - how often does kscen cry wolf within a run, and
# how often does it catch a real 10% slowdown? Not part of `make test`: it
# takes minutes. (Between runs: bench/aa-between.sh, gate-blind.sh.)
#
# Each trial is one run of two jobs on one axis, "sleep $(cat A)" and
# "sleep $(cat B)", B's baseline being A, sampled in interleaved rounds; the
# verdict is the report's "to baseline" line. Twice a trial: B = A (A/A),
# and B = A + 10% of A's median wall time (planted: what kscen measures, sh
# start-up included, is 10% slower). Runs are not stored, so no history
# widens the interval: this is the in-run test alone. Results go to
# docs/statistics.md by hand.
#
# Environment: KSCEN (default ./kscen), BASE (default 0.02),
# REPEAT (the scenario default, 5), UNTIL_CI (unset; PCT: repeat: auto until
# the median's CI is within +-PCT%, at most 30), SLOWDOWN (0.10), NICE (unset: kscen runs
# at the caller's priority; -20 as root shields the samples from the rest of
# a busy machine).
set -u
trials=${1:-100}
base=${BASE:-0.02}
slowdown=${SLOWDOWN:-0.10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy: a rebuild during the experiment must not change or break it.
cp "$(realpath "${KSCEN:-./kscen}")" "$tmp/kscen" || exit 2
kscen=$tmp/kscen

cat >"$tmp/pair.yaml" <<EOF
scenario: aa-pair
jobs:
  - name: cost
    workload: exec
    params:
      command: ["sleep \$(cat $tmp/a)", "sleep \$(cat $tmp/b)"]
    baseline: {command: "sleep \$(cat $tmp/a)"}
EOF
repeat=()
[ -n "${REPEAT:-}" ] && repeat=(-r "$REPEAT")
[ -n "${UNTIL_CI:-}" ] && repeat+=(--until-ci "$UNTIL_CI")
nice=()
[ -n "${NICE:-}" ] && nice=(nice -n "$NICE")

# pair A B: one interleaved run; prints the "to baseline" verdict ("~" for
# same), " paired" when the rounds' pairs gave it, and A's median in seconds
pair() {
	echo "$1" >"$tmp/a"
	echo "$2" >"$tmp/b"
	"${nice[@]}" "$kscen" run -q --no-save --compare none --format json "${repeat[@]}" \
		"$tmp/pair.yaml" 2>/dev/null >"$tmp/pair.json"
	/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"]
d = j[1]["deltas"]["baseline"]
v = {"same": "~"}.get(d["verdict"], d["verdict"])
print(v + (" paired" if d["paired"] else ""), j[0]["metrics"][0]["median"], sep="\t")' "$tmp/pair.json"
}

start=$(date +%s)
echo "# $trials trials, base ${base}s, slowdown $slowdown, repeat ${REPEAT:-default}, until-ci ${UNTIL_CI:-off}, nice ${NICE:-none}, load $(cut -d' ' -f1-3 /proc/loadavg)"
ip_aa=0 ip_det=0
for ((t = 1; t <= trials; t++)); do
	IFS=$'\t' read -r a m < <(pair "$base" "$base")
	slow=$(/usr/bin/python3 -c "print(f'{$base + $slowdown * $m:.6f}')")
	IFS=$'\t' read -r s _ < <(pair "$base" "$slow")
	case "$a" in "~"*) ;; *) ip_aa=$((ip_aa + 1)) ;; esac
	case "$s" in worse*) ip_det=$((ip_det + 1)) ;; esac
	printf 'interleaved trial %3d: A median %s s, B cost %s: A/A %-10s planted %s\n' \
		"$t" "$m" "$slow" "$a" "$s"
done

pct() { /usr/bin/python3 -c "print(f'{100 * $1 / $2:.1f}%')"; }
echo "# interleaved A/A: false positives $ip_aa/$trials ($(pct $ip_aa $trials)); planted: detected $ip_det/$trials ($(pct $ip_det $trials))"
echo "# $(($(date +%s) - start)) s, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
