#!/bin/bash
# profile.sh [ROUNDS] [CONFIG...] - what profiling costs, and what it finds.
#
# 1. Overhead: bench/profile-overhead.yaml ROUNDS times per CONFIG, a
#    frequency for kscen's BPF profiler or perf:FREQ for perf record
#    (default 5 rounds; 999 4999 perf:999), the configurations alternating
#    round by round so that drift on this shared machine hits them alike.
#    Per job: the profiled sample against the median of the run's recorded
#    samples (median over the rounds), next to the recorded samples' own
#    spread (their median absolute deviation from the median, in percent).
# 2. scenarios/breakpoints.yaml once under kscen's BPF profiler and once
#    under perf record (profiler: perf), the top symbols of each job side
#    by side.
# ROUNDS 0 skips the first part. Needs root (BPF) and perf. The numbers are in docs/profiles.md.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
shift || true
freqs=${*:-999 4999 perf:999}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "# $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
for r in $(seq "$rounds"); do
	for f in $freqs; do
		prof=bpf hz=$f
		case $f in perf:*) prof=perf hz=${f#perf:} ;; esac
		sed "s/^profile: {frequency: [0-9]*}/profile: {frequency: $hz, profiler: $prof}/" \
			bench/profile-overhead.yaml >"$out/o.yaml"
		./kscen run -q -o "$out/f$f" --compare none "$out/o.yaml" >/dev/null
	done
done
[ "$rounds" -gt 0 ] && /usr/bin/python3 - "$out" $freqs <<'PY'
import glob, json, subprocess, sys, statistics as st
out, freqs = sys.argv[1], sys.argv[2:]
rows = {}
for f in freqs:
    for path in sorted(glob.glob(f"{out}/f{f}/profile-overhead/*.yaml")):
        run = json.loads(subprocess.run(["./kscen", "report", "--format", "json", path],
                                        capture_output=True, text=True, check=True).stdout)
        # The profile is not in the JSON report: read it from the YAML.
        import yaml
        doc = yaml.safe_load(open(path))
        for j, y in zip(run["jobs"], doc["jobs"]):
            m = j["metrics"][0]
            p = y.get("profile") or {}
            if j["status"] != "ok" or "value" not in p:
                continue
            med = m["median"]
            mad = st.median(abs(x - med) for x in m["samples"]) / med
            rows.setdefault((j["id"], f), []).append((p["value"] / med - 1, mad, p["samples"]))
print(f"{'job':52} {'Hz':>8} {'profiled/median-1':>18} {'spread':>7} {'samples':>8}  (median of {len(next(iter(rows.values())))} runs)")
for (job, f), v in sorted(rows.items()):
    print(f"{job:52} {f:>8} {100 * st.median(x[0] for x in v):+17.1f}% "
          f"{100 * st.median(x[1] for x in v):6.1f}% {st.median(x[2] for x in v):8.0f}")
PY

echo
echo "# scenarios/breakpoints.yaml, one run each: kscen bpf | perf record (self %, top 5)"
for p in bpf perf; do
	sed "s/^repeat: 5$/repeat: 5\nprofile: {profiler: $p}/" scenarios/breakpoints.yaml >"$out/bp-$p.yaml"
	./kscen run -q -o "$out/bp-$p" --compare none "$out/bp-$p.yaml" >/dev/null
done
/usr/bin/python3 - "$out" <<'PY'
import glob, sys, yaml
out = sys.argv[1]
runs = {p: yaml.safe_load(open(glob.glob(f"{out}/bp-{p}/breakpoints/*.yaml")[0])) for p in ("bpf", "perf")}
for jb, jp in zip(runs["bpf"]["jobs"], runs["perf"]["jobs"]):
    pb, pp = jb.get("profile", {}), jp.get("profile", {})
    print(f"\n{jb['id']}: {pb.get('samples')} | {pp.get('samples')} samples ({pb.get('event')} | {pp.get('event')})")
    top = lambda p: [s for s in p.get("symbols", []) if s["self"] > 0][:5]
    for a, b in zip(top(pb) + [None] * 5, top(pp) + [None] * 5):
        if not a and not b:
            break
        fa = f"{a['self']:6.2f}% {'[k]' if a['kernel'] else '[.]'} {a['symbol']}" if a else ""
        fb = f"{b['self']:6.2f}% {'[k]' if b['kernel'] else '[.]'} {b['symbol']}" if b else ""
        print(f"  {fa:44} | {fb}")
PY
