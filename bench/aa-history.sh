#!/bin/bash
# aa-history.sh [TRIALS] - between-run verdicts once a history exists: how
# often does "vs last run" cry wolf, how often does the gate trip on nothing,
# and how often is a change of three times the measured run-to-run drift
# found? Not part of `make test`: it takes minutes. Sibling of aa-detect.sh,
# which measures the same without history.
#
# One exec job, "sleep $(cat COST)", at the default settings (repeat 5,
# warmup 1) unless REPEAT is set. First HISTORY (default 5) stored runs seed
# the history; then each trial makes
#   aa      COST = BASE, stored, compared with the last run (--gate GATE):
#           any significant verdict is a false positive, any trip a false trip
#   planted COST = BASE + 3 x drift x median, not stored, compared with the
#           last run: "worse" is a detection. drift is the run-to-run spread
#           the aa run's verdict reported, so the planted change is three
#           times what two runs may differ by with nothing changed.
# The A/A runs stay in the history, as they would in a lab; the verdicts use
# the newest 20 of them.
#
# Environment: KSCEN (default ./kscen), BASE (0.02), GATE (5), HISTORY (5),
# REPEAT (the scenario's default, 5), NICE (unset; -20 as root shields the
# samples from the rest of a busy machine), PLANT (3: the planted change in
# multiples of the drift).
set -u
trials=${1:-100}
base=${BASE:-0.02}
gate=${GATE:-5}
history=${HISTORY:-5}
plant=${PLANT:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$(realpath "${KSCEN:-./kscen}")" "$tmp/kscen" || exit 2
kscen=$tmp/kscen

cat >"$tmp/s.yaml" <<EOF
scenario: aa-history
jobs:
  - name: cost
    workload: exec
    params:
      command: "sleep \$(cat $tmp/cost)"
EOF
repeat=()
[ -n "${REPEAT:-}" ] && repeat=(-r "$REPEAT")
nice=()
[ -n "${NICE:-}" ] && nice=(nice -n "$NICE")

# verdict JSON: "VERDICT RUN_TO_RUN MEDIAN HISTORY_RUNS" of the only job
verdict() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["jobs"][0]
last = d["deltas"]["last"] or {}
print(last.get("verdict", "none"), last.get("run_to_run") or 0,
      d["metrics"][0]["median"], last.get("history_runs", 0))' "$1"
}

echo "$base" >"$tmp/cost"
for i in $(seq "$history"); do
	"${nice[@]}" "$kscen" run -q --compare none -o "$tmp/res" "${repeat[@]}" \
		"$tmp/s.yaml" >/dev/null || { echo "seed run failed" >&2; exit 2; }
	sleep 1	# one stored run a second: names are timestamps
done

aa_sig=0 aa_trip=0 found=0 planted_trip=0 planted=0
for t in $(seq "$trials"); do
	echo "$base" >"$tmp/cost"
	"${nice[@]}" "$kscen" run -q -o "$tmp/res" "${repeat[@]}" --gate "$gate" \
		--format json "$tmp/s.yaml" >"$tmp/aa.json" 2>"$tmp/aa.err"
	rc=$?
	read -r v drift median runs < <(verdict "$tmp/aa.json")
	[ "$v" != same ] && aa_sig=$((aa_sig + 1))
	[ $rc = 1 ] && aa_trip=$((aa_trip + 1))
	# The planted change: PLANT x the drift just reported, of the median.
	extra=$(python3 -c "print($plant * $drift * $median)")
	python3 -c "print($base + $extra)" >"$tmp/cost"
	"${nice[@]}" "$kscen" run -q --no-save -o "$tmp/res" "${repeat[@]}" \
		--gate "$gate" --format json "$tmp/s.yaml" >"$tmp/p.json" 2>"$tmp/p.err"
	prc=$?
	read -r pv pdrift pmedian pruns < <(verdict "$tmp/p.json")
	planted=$((planted + 1))
	[ "$pv" = worse ] && found=$((found + 1))
	[ $prc = 1 ] && planted_trip=$((planted_trip + 1))
	printf 'trial %d: history %s, drift %.3f, A/A %s (rc %d), planted +%.1f%%: %s (rc %d)\n' \
		"$t" "$runs" "$drift" "$v" "$rc" "$(python3 -c "print(100 * $extra / $median)")" \
		"$pv" "$prc"
	sleep 1
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A/A significant: $aa_sig/$trials, A/A gate $gate% trips: $aa_trip/$trials"
echo "planted ${plant}x drift found: $found/$planted, gate trips: $planted_trip/$planted"
