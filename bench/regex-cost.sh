#!/bin/bash
# regex-cost.sh - what matching a metric regex costs a sample of exec, now
# that it runs in a child process of its own (docs/reliability.md, section
# 10: a regex is matched within the sample's deadline, with a CPU and a
# memory limit, killed on ^C). Two jobs of one run, in alternating rounds:
# `echo v: 5` with metric_regex "v: ([0-9]+)" and without; each job's
# runner time a sample (its `seconds` in the result, what shards are
# balanced by) and the difference. RUNS runs (default 5) of REPEAT samples
# (default 200). KSCEN (./kscen). About 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."
kscen=$(realpath "${KSCEN:-./kscen}")
runs=${RUNS:-5} repeat=${REPEAT:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/rx.yaml" <<'YAML'
scenario: regex-cost
warmup: 5
jobs:
  - name: plain
    workload: exec
    params: {command: "echo v: 5"}
  - name: regex
    workload: exec
    params: {command: "echo v: 5", metric_regex: "v: ([0-9]+)"}
YAML
echo "date: $(date -u +%Y-%m-%dT%H:%MZ)  load: $(cut -d' ' -f1-3 /proc/loadavg)  kscen: $kscen"
echo "run  plain ms/sample  regex ms/sample  regex - plain"
for r in $(seq "$runs"); do
	"$kscen" run -q -r "$repeat" -o "$tmp/res" --compare none "$tmp/rx.yaml" >/dev/null
	f=$(ls -t "$tmp"/res/regex-cost/*.yaml | head -1)
	/usr/bin/python3 - "$f" "$r" <<'PY'
import sys, yaml
run = yaml.safe_load(open(sys.argv[1]))
ms = {}
for j in run["jobs"]:
    n = len(j["metrics"][0]["samples"]) + run["warmup"]
    ms[j["name"]] = 1000 * j["seconds"] / n
print("%3s  %16.3f  %15.3f  %13.3f" % (sys.argv[2], ms["plain"], ms["regex"], ms["regex"] - ms["plain"]))
PY
done
