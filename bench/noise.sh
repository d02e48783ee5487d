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
#     usecs/op) and the harness's cost per sample (the difference of the
#     two runs, less what the samples measured, over N), in wall time and
#     in CPU time (of kscen, its fork server and its samples: what a
#     loaded machine blurs less), as the median of each round's ratio
#     on/off. Done when the measure moves by at most 2% and the harness by
#     at most 10%.
#
# Environment: KSCEN (./kscen), PARTS ("1 2 3": which of them), SAMPLES
# (100), P (0.3), RUNTIME (100ms), TRIALS (10), REPEAT (10), ROUNDS (5),
# N (400), SEED (1).
set -euo pipefail
cd "$(dirname "$0")/.."
samples=${SAMPLES:-100} p=${P:-0.3} runtime=${RUNTIME:-100ms}
trials=${TRIALS:-10} repeat=${REPEAT:-10} rounds=${ROUNDS:-5} n=${N:-400}
seed=${SEED:-1} parts=" ${PARTS:-1 2 3} "
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
if [[ $parts == *" 1 "* ]]; then
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
fi

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
if [[ $parts == *" 2 "* ]]; then
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
fi

# ---- 3. cost: alternating rounds with and without the sentinels ------------
[[ $parts == *" 3 "* ]] && $py - "$kscen" "$tmp" "$rounds" "$n" <<'PY'
import json, os, resource, subprocess, sys, time
kscen, tmp, rounds, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def timed(env, args):
    """wall and CPU (the whole process tree's: runner, server, samples)"""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    subprocess.run([kscen] + args, env=env, check=True, stdout=subprocess.DEVNULL)
    t, r1 = time.monotonic() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
def side(on):
    env = dict(os.environ)
    if not on:
        env["KSCEN_TEST_NO_SENTINELS"] = "1"
    base = ["run", "-q", "--compare", "none"]
    wa, ca = timed(env, base + ["--no-save", "-r", "1", tmp + "/sys.yaml"])
    res = f"{tmp}/res3-{int(on)}"
    subprocess.run(["rm", "-rf", res], check=True)
    wb, cb = timed(env, base + ["-o", res, "-r", str(n + 1), tmp + "/sys.yaml"])
    f = [x for x in os.listdir(res + "/noise-sys") if x.endswith(".yaml")][0]
    out = subprocess.run([kscen, "report", "--format", "json", f"{res}/noise-sys/{f}"],
                         check=True, capture_output=True, text=True).stdout
    m = json.loads(out)["jobs"][0]["metrics"][0]
    took = sum(m["samples"]) * 1000 / 1e6   # usecs/op x 1,000 loops, in s
    return (m["median"], 1000 * (wb - wa - took * n / (n + 1)) / n,
            1000 * (cb - ca - took * n / (n + 1)) / n)
rows = []
for r in range(rounds):
    order = (True, False) if r % 2 == 0 else (False, True)
    got = {o: side(o) for o in order}
    rows.append((got[True], got[False]))
def med(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
print(f"3. cost, {rounds} alternating rounds of {n + 1} samples of syscall.basic 1,000 loops"
      " (on/off: with and without the sentinels):")
for i, what, unit in ((0, "measured", "usecs/op"), (1, "harness, wall", "ms a sample"),
                      (2, "harness, CPU", "ms a sample")):
    on, off = [r[0][i] for r in rows], [r[1][i] for r in rows]
    ratios = [a / b for a, b in zip(on, off)]
    print(f"   {what}: on {med(on):.4f}, off {med(off):.4f} {unit}; ratio {med(ratios):.3f}"
          " (rounds: " + " ".join(f"{x:.3f}" for x in ratios) + ")")
PY
echo "# $(($(date +%s) - start)) s, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
