#!/bin/bash
# fidelity-perf-bench.sh [REPEAT] - kscen's futex, epoll and mem workloads
# against perf bench on the same points, in one run with interleaved rounds
# (scenarios/perf-bench-more.yaml), and the ratios of their medians with the
# load average before and after. Needs perf. The numbers are in
# docs/perf-bench-workloads.md.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${1:-10}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# a failed job stops the script below, with its reason
./kscen run -q -r "$repeat" -o "$out" --compare none scenarios/perf-bench-more.yaml >/dev/null || true
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
./kscen report --format json "$out"/perf-bench-more >"$out/run.json"
/usr/bin/python3 - "$out/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
med, n, cv = {}, {}, {}
for j in run["jobs"]:
    if j["status"] != "ok":
        sys.exit(f"{j['id']}: {j['status']}: {j.get('reason')}")
    med[j["name"]] = j["metrics"][0]["median"]
    if j["name"] == "k-find-bit":
        # its second metric is the test_bit loop
        med["k-find-bit-test"] = j["metrics"][1]["median"]
        cv["k-find-bit-test"] = j["metrics"][1]["cv"]
    n[j["name"]] = len(j["metrics"][0]["samples"])
    cv[j["name"]] = j["metrics"][0]["cv"]
# perf's mem numbers are bytes/sec, kscen's GB/sec (2^30 bytes, as perf's
# print_bps()).
scale = {"memcpy": 2**30, "memcpy-movsb": 2**30, "memset": 2**30, "memset-stosb": 2**30}
units = {"futex-hash": "ops/sec", "futex-lock-pi": "ops/sec", "futex-wake": "ms",
         "futex-wake-parallel": "ms", "futex-requeue": "ms", "futex-requeue-pi": "ms",
         "epoll-wait": "ops/sec",
         "epoll-ctl": "ADD ops/sec", "memcpy": "GB/sec", "memcpy-movsb": "GB/sec",
         "memset": "GB/sec", "memset-stosb": "GB/sec", "find-bit": "usec",
         "find-bit-test": "usec"}
print(f"{'point':22} {'unit':12} {'kscen':>12} {'perf':>12} {'kscen/perf':>10} {'CV k':>6} {'CV p':>6}   (medians of {run['repeat']})")
for name in units:
    k, p = med["k-" + name], med["p-" + name] / scale.get(name, 1)
    print(f"{name:22} {units[name]:12} {k:12.4f} {p:12.4f} {k / p:10.3f} "
          f"{cv['k-' + name]:6.1%} {cv['p-' + name]:6.1%}")
PY
