#!/bin/bash
# fidelity-breakpoint.sh [REPEAT] - kscen's breakpoint workloads against
# perf bench on the same points, in one run with interleaved rounds
# (scenarios/perf-bench-breakpoint.yaml), and the ratios of their medians.
# Needs root and perf. The numbers are in docs/fidelity.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${1:-15}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
./kscen run -q -r "$repeat" -o "$out" --compare none scenarios/perf-bench-breakpoint.yaml >/dev/null
./kscen report --format json "$out"/perf-bench-breakpoint >"$out/run.json"
/usr/bin/python3 - "$out/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
def point(j):
    p = j["params"]
    if "breakpoints" in p:
        return str(p["breakpoints"])
    for b in ("0", "4"):            # the command's label: b0, b4
        if p.get("command") == f"b{b}":
            return b
    return "-"
med = {}
for j in run["jobs"]:
    if j["status"] != "ok":
        sys.exit(f"{j['id']}: {j['status']}: {j.get('reason')}")
    med[j["name"], point(j)] = j["metrics"][0]["median"], len(j["metrics"][0]["samples"])
rows = [("thread -b 0 -p 2 -t 20, 56 loops", ("kscen-thread", "0"), ("perf-thread", "0")),
        ("thread -b 4 -p 2 -t 20, 56 loops", ("kscen-thread", "4"), ("perf-thread", "4")),
        ("enable, 0 passive 0 active, 20000 loops", ("kscen-enable", "-"), ("perf-enable", "-"))]
print(f"{'point':42} {'kscen':>10} {'perf':>10} {'kscen/perf':>10}   (usecs/op, medians of {run['repeat']})")
for name, k, p in rows:
    print(f"{name:42} {med[k][0]:10.3f} {med[p][0]:10.3f} {med[k][0] / med[p][0]:10.3f}")
ks = med["kscen-thread", "4"][0] / med["kscen-thread", "0"][0]
ps = med["perf-thread", "4"][0] / med["perf-thread", "0"][0]
print(f"{'b4/b0 slowdown':42} {ks:10.3f} {ps:10.3f} {ks / ps:10.3f}")
PY
