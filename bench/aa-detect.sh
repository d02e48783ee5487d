#!/bin/bash
# aa-detect.sh [TRIALS] - how often does kscen cry wolf, and how often does
# it catch a real 10% slowdown? Not part of `make test`: it takes minutes.
#
# Each trial makes three runs of one exec job, "sleep $(cat COST)", at the
# default settings (repeat 5, warmup 1) unless REPEAT is set:
#   old    COST = BASE seconds
#   aa     COST = BASE again                       -> A/A: any verdict is false
#   slow   COST = BASE + 10% of old's median wall time -> a planted slowdown
# and compares old with each through `kscen compare --gate GATE`. It counts
#   A/A:     significant verdicts (false positives), gate trips
#   planted: "worse" verdicts (detections), gate trips
# The slowdown is 10% of what kscen measures (sh start-up included), not of
# the sleep alone.
#
# Then the same within one run: two jobs on one axis, "sleep $(cat A)" and
# "sleep $(cat B)", B's baseline being A, sampled in interleaved rounds; the
# verdict is the report's "to baseline" line. Twice a trial: B = A (A/A),
# and B = A + 10% (planted). Results go to docs/statistics.md by hand.
#
# Environment: KSCEN (default ./kscen), BASE (default 0.02), GATE (5),
# REPEAT (the scenario default, 5), UNTIL_CI (unset; PCT: repeat: auto until
# the median's CI is within +-PCT%, at most 30), SLOWDOWN (0.10), NICE (unset: kscen runs
# at the caller's priority; -20 as root shields the samples from the rest of
# a busy machine).
set -u
trials=${1:-100}
base=${BASE:-0.02}
gate=${GATE:-5}
slowdown=${SLOWDOWN:-0.10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy: a rebuild during the experiment must not change or break it.
cp "$(realpath "${KSCEN:-./kscen}")" "$tmp/kscen" || exit 2
kscen=$tmp/kscen

cat >"$tmp/s.yaml" <<EOF
scenario: aa-detect
jobs:
  - name: cost
    workload: exec
    params:
      command: "sleep \$(cat $tmp/cost)"
EOF
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

# run NAME COST: one stored run in $tmp/NAME/ (a directory each, so that
# runs within one second do not collide).
run() {
	echo "$2" >"$tmp/cost"
	rm -rf "$tmp/$1"
	"${nice[@]}" "$kscen" run -q --compare none -o "$tmp/$1" "${repeat[@]}" "$tmp/s.yaml" >/dev/null ||
		{ echo "kscen run failed" >&2; exit 2; }
}

# verdict OLD NEW: "worse", "better" or "~", then " gate" if it tripped
verdict() {
	local out rc
	out=$("$kscen" compare --gate "$gate" "$tmp/$1/aa-detect" "$tmp/$2/aa-detect")
	rc=$?
	case "$out" in
	*" worse (p"*) printf worse ;;
	*" better (p"*) printf better ;;
	*) printf '~' ;;
	esac
	[ $rc = 1 ] && printf ' gate'
	echo
}

# pair A B: one interleaved run; prints the "to baseline" verdict, and
# " paired" when the rounds' pairs gave it
pair() {
	echo "$1" >"$tmp/a"
	echo "$2" >"$tmp/b"
	"${nice[@]}" "$kscen" run -q --no-save --compare none -v "${repeat[@]}" \
		"$tmp/pair.yaml" 2>/dev/null >"$tmp/pair.out"
	case "$(grep 'to baseline:' "$tmp/pair.out")" in
	*" worse (p"*) printf worse ;;
	*" better (p"*) printf better ;;
	*) printf '~' ;;
	esac
	grep -q 'to baseline:.*Wilcoxon' "$tmp/pair.out" && printf ' paired'
	echo
}

median() {
	/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["metrics"][0]["median"])'
}

aa_sig=0 aa_gate=0 det=0 det_gate=0 slower_better=0
start=$(date +%s)
echo "# $trials trials, base ${base}s, slowdown $slowdown, gate $gate%, repeat ${REPEAT:-default}, until-ci ${UNTIL_CI:-off}, nice ${NICE:-none}, load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((t = 1; t <= trials; t++)); do
	run old "$base"
	m=$("$kscen" report --format json "$tmp/old/aa-detect" | median)
	slow=$(/usr/bin/python3 -c "print(f'{$base + $slowdown * $m:.6f}')")
	run aa "$base"
	run slow "$slow"
	a=$(verdict old aa)
	s=$(verdict old slow)
	case "$a" in "~"*) ;; *) aa_sig=$((aa_sig + 1)) ;; esac
	case "$a" in *gate) aa_gate=$((aa_gate + 1)) ;; esac
	case "$s" in worse*) det=$((det + 1)) ;; better*) slower_better=$((slower_better + 1)) ;; esac
	case "$s" in *gate) det_gate=$((det_gate + 1)) ;; esac
	printf 'trial %3d: old median %.5f s, slow cost %s: A/A %-10s planted %s\n' \
		"$t" "$m" "$slow" "$a" "$s"
done
ip_aa=0 ip_det=0
for ((t = 1; t <= trials; t++)); do
	a=$(pair "$base" "$base")
	m=$(awk '/^# Running aa-pair/ { n++ } n == 1 && / s \(wall_time\)/ { print $1; exit }' \
		"$tmp/pair.out")
	slow=$(/usr/bin/python3 -c "print(f'{$base + $slowdown * $m:.6f}')")
	s=$(pair "$base" "$slow")
	case "$a" in "~"*) ;; *) ip_aa=$((ip_aa + 1)) ;; esac
	case "$s" in worse*) ip_det=$((ip_det + 1)) ;; esac
	printf 'interleaved trial %3d: A median %s s, B cost %s: A/A %-10s planted %s\n' \
		"$t" "$m" "$slow" "$a" "$s"
done

pct() { /usr/bin/python3 -c "print(f'{100 * $1 / $2:.1f}%')"; }
echo "# A/A:     false positives $aa_sig/$trials ($(pct $aa_sig $trials)), gate $gate% trips $aa_gate/$trials ($(pct $aa_gate $trials))"
echo "# planted: detected $det/$trials ($(pct $det $trials)), called better $slower_better, gate $gate% trips $det_gate/$trials ($(pct $det_gate $trials))"
echo "# interleaved A/A: false positives $ip_aa/$trials ($(pct $ip_aa $trials)); planted: detected $ip_det/$trials ($(pct $ip_det $trials))"
echo "# $(($(date +%s) - start)) s, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
