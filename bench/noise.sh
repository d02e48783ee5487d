#!/bin/bash
# noise.sh - the figures of docs/noise.md: are planted disturbances flagged,
# does noise: retake undo what they do to a job's numbers, and what do the
# sentinels cost. Not part of `make test` (3 to 5 minutes on 2 CPUs).
#
#  1. Detection. A CPU-bound job (futex.hash, one thread, RUNTIME a sample)
#     takes SAMPLES samples under KSCEN_TEST_DISTURB=P,2: each sample is
#     taken with probability P while two processes spin outside its cgroup,
#     as bursts of `stress-ng --cpu 2` would. Of the planted samples, how
#     many the sentinels call disturbed, and with "other load" as the
#     cause; of the others, how many (false alarms), and the other load
#     they saw (median, 95th percentile, largest). Done when: >= 90%
#     planted flagged, <= 5% of the others, each with the right cause.
#  2. Intermittent load. TRIALS pairs of runs of the same job, REPEAT
#     samples each, three ways: quiet (nothing planted), flag and retake
#     (P planted, the noise policy flag or retake). For each way: the
#     median of the runs' 95% CI half-widths, and the A/A rate, the share
#     of pairs that `kscen compare` calls different. Done when retake's
#     are within 1.5x of quiet's and flag's are not.
#  3. Cost. syscall.basic at 1,000 loops with and without the sentinels
#     (the test hook KSCEN_TEST_NO_SENTINELS=1), ROUNDS alternating rounds,
#     each a run of N+1 and of 1 sample: what a sample measures (median
#     usecs/op) and the harness's time per sample (the difference of the
#     runs' wall times, less what the samples measured, over N), as the
#     median of each round's ratio on/off. Done when the measure moves by
#     at most 2% and the harness by at most 10%.
#
# Environment: KSCEN (./kscen), SAMPLES (100), P (0.3), RUNTIME (100ms),
# TRIALS (10), REPEAT (10), ROUNDS (5), N (400), SEED (1).
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${SAMPLES:-100} p=${P:-0.3} runtime=${RUNTIME:-100ms}
trials=${TRIALS:-10} repeat=${REPEAT:-10} rounds=${ROUNDS:-5} n=${N:-400}
seed=${SEED:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A copy: a rebuild during the measurement must not change it.
cp "$(realpath "${KSCEN:-./kscen}")" "$tmp/kscen"
kscen=$tmp/kscen
py=/usr/bin/python3
start=$(date +%s)

cat >"$tmp/cpu.yaml" <<EOF
scenario: noise-cpu
warmup: 1
jobs:
  - name: cpu
    workload: futex.hash
    params: {threads: 1, futexes: 16, runtime: $runtime}
EOF
cat >"$tmp/sys.yaml" <<EOF
scenario: noise-sys
warmup: 0
jobs:
  - name: sys
    workload: syscall.basic
    params: {loops: 1000}
EOF

echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)" \
	"($(nproc) CPUs)  kscen: $("$kscen" --version | head -1)"
echo "system check: $("$kscen" system check --watch 1000 | sed -n 's/^off: //p')"

# ---- 1. detection ----------------------------------------------------------
KSCEN_TEST_DISTURB=$p,2,$seed "$kscen" run -q --no-save --compare none --format json \
	--noise flag -r "$samples" "$tmp/cpu.yaml" >"$tmp/det.json"
$py - "$tmp/det.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["jobs"][0]["noise"]["samples"]
pl = [x for x in s if x["planted"]]
un = [x for x in s if not x["planted"]]
hit = [x for x in pl if x["disturbed"]]
right = [x for x in hit if "other load" in (x["cause"] or "")]
fa = [x for x in un if x["disturbed"]]
def q(v, f):
    v = sorted(v)
    return v[min(len(v) - 1, int(f * len(v)))] if v else float("nan")
def pct(a, b):
    return f"{len(a)}/{len(b)} ({100 * len(a) / max(len(b), 1):.0f}%)"
o = [x["other"] for x in un if x["other"] is not None]
op = [x["other"] for x in pl if x["other"] is not None]
secs = sorted(x["seconds"] for x in s if x["seconds"] is not None)
print(f"1. detection, {len(s)} samples of {secs[len(secs) // 2]:.3f} s (median):"
      f" planted flagged {pct(hit, pl)}, with the right cause {pct(right, hit)};"
      f" others flagged {pct(fa, un)}")
print(f"   other load, CPUs: not planted p50 {q(o, .5):.3f} p95 {q(o, .95):.3f}"
      f" max {max(o, default=float('nan')):.3f}; planted p5 {q(op, .05):.3f}"
      f" p50 {q(op, .5):.3f}")
causes = {}
for x in fa:
    for c in x["cause"].split(", "):
        k = c.rstrip("0123456789.%/s CPU")
        causes[k] = causes.get(k, 0) + 1
if causes:
    print("   causes of the false alarms: " +
          ", ".join(f"{k} {v}" for k, v in sorted(causes.items())))
PY

# ---- 2. intermittent load: CI width and A/A rate ---------------------------
# way NAME POLICY [ENV...]: TRIALS pairs of runs, each into its own directory
way() {
	local name=$1 policy=$2 t
	shift 2
	for ((t = 1; t <= trials; t++)); do
		for side in a b; do
			env "$@" "$kscen" run -q --compare none -r "$repeat" --noise "$policy" \
				-o "$tmp/$name/$t$side" "$tmp/cpu.yaml" >/dev/null
		done
	done
}
# summary NAME: "CI_MEDIAN AA_COUNT" over its trials
summary() {
	local t out sig=0
	for ((t = 1; t <= trials; t++)); do
		out=$("$kscen" compare "$tmp/$1/${t}a/noise-cpu" "$tmp/$1/${t}b/noise-cpu" || true)
		case "$out" in *" worse (p"*|*" better (p"*) sig=$((sig + 1)) ;; esac
	done
	for f in "$tmp/$1"/*/noise-cpu/*.yaml; do "$kscen" report --format json "$f"; done |
		$py -c '
import json, sys
dec = json.JSONDecoder()
text, hw, i = sys.stdin.read(), [], 0
while i < len(text):
    r, i = dec.raw_decode(text, i)
    while i < len(text) and text[i].isspace():
        i += 1
    m = r["jobs"][0]["metrics"][0]
    hw.append(100 * (m["ci_high"] - m["ci_low"]) / 2 / m["median"])
hw.sort()
print(f"{hw[len(hw) // 2]:.2f} '"$sig"'")'
}
way quiet flag
way flag flag KSCEN_TEST_DISTURB=$p,2,$((seed + 1))
way retake retake KSCEN_TEST_DISTURB=$p,2,$((seed + 1))
read -r qci qaa <<<"$(summary quiet)"
read -r fci faa <<<"$(summary flag)"
read -r rci raa <<<"$(summary retake)"
ratio() { $py -c "print(f'{$1 / $2:.2f}x' if $2 else ('1.00x' if $1 == $2 else 'inf'))"; }
echo "2. intermittent load (P $p), $trials pairs of runs of $repeat samples:"
echo "   quiet:  CI ±$qci% (median over runs), A/A $qaa/$trials"
echo "   flag:   CI ±$fci% ($(ratio "$fci" "$qci") quiet's), A/A $faa/$trials ($(ratio "$faa" "$qaa"))"
echo "   retake: CI ±$rci% ($(ratio "$rci" "$qci") quiet's), A/A $raa/$trials ($(ratio "$raa" "$qaa"))"

# ---- 3. cost: alternating rounds with and without the sentinels ------------
now() { date +%s%N; }
# side ENV: "MEASURED_USECS_PER_OP HARNESS_MS_PER_SAMPLE" of one round
side() {
	local t0 a b f m
	t0=$(now)
	env "$@" "$kscen" run -q --no-save --compare none -r 1 "$tmp/sys.yaml" >/dev/null
	a=$(($(now) - t0))
	rm -rf "$tmp/res3"
	t0=$(now)
	env "$@" "$kscen" run -q --compare none -o "$tmp/res3" -r $((n + 1)) "$tmp/sys.yaml" >/dev/null
	b=$(($(now) - t0))
	f=$(ls "$tmp"/res3/noise-sys/*.yaml)
	"$kscen" report --format json "$f" | $py -c '
import json, sys
m = json.load(sys.stdin)["jobs"][0]["metrics"][0]
a, b, n = '"$a"' / 1e9, '"$b"' / 1e9, '"$n"'
# what the samples measured: usecs/op x 1,000 loops, in seconds
took = sum(m["samples"]) * 1000 / 1e6
print(m["median"], 1000 * (b - a - took * n / (n + 1)) / n)'
}
: >"$tmp/cost"
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then
		on=$(side); off=$(side KSCEN_TEST_NO_SENTINELS=1)
	else
		off=$(side KSCEN_TEST_NO_SENTINELS=1); on=$(side)
	fi
	echo "$on $off" >>"$tmp/cost"
done
$py - "$tmp/cost" "$rounds" "$n" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
med = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
print(f"3. cost, {sys.argv[2]} alternating rounds of {int(sys.argv[3]) + 1} samples of syscall.basic 1,000 loops:")
print(f"   measured: on {med([r[0] for r in rows]):.4f}, off {med([r[2] for r in rows]):.4f} usecs/op;"
      f" ratio on/off {med([r[0] / r[2] for r in rows]):.4f} (each round's: "
      + " ".join(f"{r[0] / r[2]:.3f}" for r in rows) + ")")
print(f"   harness: on {med([r[1] for r in rows]):.3f}, off {med([r[3] for r in rows]):.3f} ms a sample;"
      f" ratio on/off {med([r[1] / r[3] for r in rows]):.3f} (each round's: "
      + " ".join(f"{r[1] / r[3]:.3f}" for r in rows) + ")")
PY
echo "# $(($(date +%s) - start)) s, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
