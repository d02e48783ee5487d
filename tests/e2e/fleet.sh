#!/bin/bash
# fleet.sh [KSCEN] - end-to-end tests: run/plan --shard and kscen merge.
. "$(dirname "$0")/lib.sh"

# ---- shards ---------------------------------------------------------------
sfx=$fx/e2e/shard.yaml
"$kscen" plan $sfx | sed '$d' | sort >"$tmp/plan.all"
: >"$tmp/plan.shards"
ok=1
for k in 1 2 3 4; do
	"$kscen" plan --shard $k/4 $sfx >"$tmp/plan.$k" || ok=0
	sed '$d' "$tmp/plan.$k" >>"$tmp/plan.shards"
	# the pair (a job and its baseline) never splits
	[ "$(grep -c '^pair/' "$tmp/plan.$k")" = 1 ] && ok=0
done
sort "$tmp/plan.shards" | cmp -s - "$tmp/plan.all" || ok=0
[ $ok = 1 ] && grep -q '^2 jobs (shard 1/4 of 5 jobs)$' "$tmp/plan.1" &&
	pass plan_shards_partition_the_plan ||
	fail plan_shards_partition_the_plan "$(cat "$tmp"/plan.[1-4])"
"$kscen" plan --shard 3/4 $sfx >"$tmp/again"
cmp -s "$tmp/again" "$tmp/plan.3" && pass plan_shard_is_deterministic ||
	fail plan_shard_is_deterministic "$(cat "$tmp/again")"
for bad in 0/4 5/4 1/0 x/4 1/4/2; do
	run "$kscen" plan --shard $bad $sfx
	[ $rc = 2 ] || { fail plan_shard_bad_exit_2 "--shard $bad: rc=$rc"; break; }
done
[ $rc = 2 ] && pass plan_shard_bad_exit_2
SLURM_ARRAY_TASK_ID=12 SLURM_ARRAY_TASK_MIN=10 SLURM_ARRAY_TASK_COUNT=4 \
	run "$kscen" plan $sfx
cmp -s "$tmp/out" "$tmp/plan.3" && pass plan_shard_from_slurm_array ||
	fail plan_shard_from_slurm_array "rc=$rc $(cat "$tmp/out" "$tmp/err")"
JOB_COMPLETION_INDEX=2 run "$kscen" plan $sfx
[ $rc = 2 ] && grep -q -- '--shards N' "$tmp/err" && pass plan_completion_index_needs_shards ||
	fail plan_completion_index_needs_shards "rc=$rc $(cat "$tmp/err")"
JOB_COMPLETION_INDEX=2 run "$kscen" plan --shards 4 $sfx
cmp -s "$tmp/out" "$tmp/plan.3" && pass plan_shard_from_completion_index ||
	fail plan_shard_from_completion_index "rc=$rc $(cat "$tmp/out" "$tmp/err")"

# ---- compare --fleet: per host, per configuration, across hosts ---------------
# Three runs whose medians are exact (100, then 200 and 150), copied as hosts
# h1-h3 (h3 on another kernel) and h4 (only in NEW).
ffx=$fx/e2e/fleet.yaml
for v in 100 200 150; do E2E_V=$v "$kscen" run -q --compare none -o "$tmp/fr$v" $ffx >/dev/null 2>&1; done
as_host() {	# as_host RUN HOST [KERNEL]: the run as if HOST had made it
	sed -e "s/^  hostname: .*/  hostname: $2/" ${3:+-e "s/^  kernel: .*/  kernel: $3/"} "$1"
}
mkdir -p "$tmp/fold" "$tmp/fnew"
o=$(ls "$tmp"/fr100/e2e-fleet/*.yaml); n2=$(ls "$tmp"/fr200/e2e-fleet/*.yaml); n15=$(ls "$tmp"/fr150/e2e-fleet/*.yaml)
as_host "$o" h1 >"$tmp/fold/20261203T000000Z-h1.yaml"
as_host "$o" h2 >"$tmp/fold/20261203T000000Z-h2.yaml"
as_host "$o" h3 6.99.0-test >"$tmp/fold/20261203T000000Z-h3.yaml"
as_host "$n2" h1 >"$tmp/fnew/20261203T000001Z-h1.yaml"
as_host "$n15" h2 >"$tmp/fnew/20261203T000001Z-h2.yaml"
as_host "$n2" h3 6.99.0-test >"$tmp/fnew/20261203T000001Z-h3.yaml"
as_host "$n2" h4 >"$tmp/fnew/20261203T000001Z-h4.yaml"
run "$kscen" compare --fleet "$tmp/fold" "$tmp/fnew"
# 100 -> 200, 150, 200: across hosts (2 x 1.5 x 2)^(1/3) = +81.7%; h3's
# configuration alone +100.0%, h1 and h2's (2 x 1.5)^(1/2) = +73.2%. One old
# run a host is no history: no host, and so not the mean, can tell.
g3=$(sed -n 's/^## h3 (configuration \([A-Z]\)).*/\1/p' "$tmp/out")
g1=$(sed -n 's/^## h1 (configuration \([A-Z]\)).*/\1/p' "$tmp/out")
if [ $rc = 0 ] && grep -q '^# kscen compare --fleet: scenario e2e-fleet, 3 hosts, 2 configurations$' "$tmp/out" &&
   grep -q '^# h4: no run in .*, left out$' "$tmp/out" &&
   [ -n "$g3" ] && [ -n "$g1" ] && [ "$g1" != "$g3" ] &&
   [ "$(sed -n 's/^## h2 (configuration \([A-Z]\)).*/\1/p' "$tmp/out")" = "$g1" ] &&
   grep -A1 '^## h2 ' "$tmp/out" | grep -q '^  +50.0% cannot tell (no run-to-run estimate, 1 run) ' &&
   grep -A1 '^## h1 ' "$tmp/out" | grep -q '^  +100.0% ' &&
   grep -q "^    +81.7% cannot tell  v/.*(3 hosts: 0 worse, 0 better, 0 ~, 3 cannot tell; range +50.0% .. +100.0%; lower is better).* $g3: +100.0%" "$tmp/out" &&
   grep -q "^    +81.7% cannot tell  v/.* $g1: +73.2%" "$tmp/out" &&
   grep -q '^    +81.7%  all jobs, all hosts (3 ratios, no interval: the jobs differ)$' "$tmp/out" &&
   grep -q "^     kernel: .* ($g3: 6.99.0-test)\$\|^     kernel: 6.99.0-test ($g1: " "$tmp/out"; then
	pass compare_fleet_hosts_configurations_geomean
else
	fail compare_fleet_hosts_configurations_geomean "rc=$rc g1=$g1 g3=$g3 $(cat "$tmp/out" "$tmp/err")"
fi
run "$kscen" compare --fleet "$tmp/fold" "$tmp/fr100"
[ $rc = 2 ] && grep -q 'no host has usable runs in both' "$tmp/err" &&
	pass compare_fleet_without_common_host_exit_2 ||
	fail compare_fleet_without_common_host_exit_2 "rc=$rc $(cat "$tmp/out" "$tmp/err")"

# ---- a merged run has the plan's order, not the shards' ---------------------------
ofx=$fx/e2e/shard-order.yaml
for k in 1 2; do "$kscen" run -q --compare none --shard $k/2 -o "$tmp/ores" $ofx >/dev/null 2>&1; done
run "$kscen" merge "$tmp/omerged.yaml" "$tmp/ores/e2e-shard-order"
sed -n 's/^- id: //p' "$tmp/omerged.yaml" >"$tmp/omerged.ids"
"$kscen" plan $ofx | sed '$d' >"$tmp/oplan.ids"
# shard 1 holds a/true and b/true: joined shard by shard, the entries interleave
if [ $rc = 0 ] && cmp -s "$tmp/omerged.ids" "$tmp/oplan.ids" &&
   [ "$(sed '$d' <("$kscen" plan --shard 1/2 -o "$tmp/none" $ofx) | tr '\n' ' ')" = "a/command=true b/command=true " ]; then
	pass merge_keeps_plan_order
else
	fail merge_keeps_plan_order "rc=$rc $(diff "$tmp/omerged.ids" "$tmp/oplan.ids")"
fi

# ---- shards compared with a stored run merge: each job keeps its reference -------
# (merge copied the jobs field by field and freed their reference twice: abort)
"$kscen" run -q -o "$tmp/rres" $ofx >/dev/null 2>&1
for k in 1 2; do "$kscen" run -q --shard $k/2 -o "$tmp/rres" $ofx >/dev/null 2>&1; done
run "$kscen" merge "$tmp/rmerged.yaml" $(ls "$tmp"/rres/e2e-shard-order/*.yaml | tail -2)
n=$(grep -c '^  reference: ' "$tmp/rmerged.yaml" 2>/dev/null)
[ $rc = 0 ] && [ "$n" = "$(sed '$d' <("$kscen" plan $ofx) | wc -l)" ] &&
	pass merge_shards_with_references || fail merge_shards_with_references "rc=$rc n=$n $(head -c 400 "$tmp/err")"

# ---- shards balanced by the durations of a stored run ----------------------------
wfx=$fx/e2e/shard-weights.yaml
"$kscen" plan --shard 1/2 -o "$tmp/wres" $wfx >"$tmp/w.count"
run "$kscen" run -q --compare none -o "$tmp/wres" $wfx
"$kscen" plan --shard 1/2 -o "$tmp/wres" $wfx >"$tmp/w.1"
"$kscen" plan --shard 2/2 -o "$tmp/wres" $wfx >"$tmp/w.2"
# by count: two and two; by duration: the slow job alone
if [ $rc = 0 ] && grep -q '^2 jobs (shard 1/2 of 4 jobs)$' "$tmp/w.count" &&
   grep -q '^seconds: \|^  seconds: ' "$tmp"/wres/e2e-shard-weights/*.yaml &&
   [ "$(sed '$d' "$tmp/w.1")" = "slow/command=sleep 1.5" ] &&
   grep -q '^1 job (shard 1/2 of 4 jobs, balanced by the job durations of .*wres/e2e-shard-weights/' "$tmp/w.1" &&
   [ "$(sed '$d' "$tmp/w.2" | wc -l)" = 3 ]; then
	pass plan_shards_balanced_by_durations
else
	fail plan_shards_balanced_by_durations "rc=$rc $(cat "$tmp/w.count" "$tmp/w.1" "$tmp/w.2")"
fi
run "$kscen" run -q --shard 2/2 -o "$tmp/wres" $wfx
grep -q '^# shard: 2/2 (balanced by the job durations of ' "$tmp/out" &&
	grep -q '^shard_balance: ' "$(ls -t "$tmp"/wres/e2e-shard-weights/*.yaml | head -1)" &&
	pass run_shard_says_its_balance ||
	fail run_shard_says_its_balance "rc=$rc $(head -5 "$tmp/out")"

# ---- run --shard, merge ------------------------------------------------------
sh=$tmp/shards
ok=1
for k in 1 2; do
	run "$kscen" run -q -r 1 --compare none --shard $k/2 -o "$sh" $sfx
	[ $rc = 0 ] && grep -q "^# shard: $k/2$" "$tmp/out" || ok=0
done
files=$(ls "$sh"/e2e-shard/*.yaml 2>/dev/null | wc -l)
[ $ok = 1 ] && [ "$files" = 2 ] && grep -q "^shard: '1/2'" "$sh"/e2e-shard/*.yaml &&
	pass run_shard_reports_and_stores_shard ||
	fail run_shard_reports_and_stores_shard "rc=$rc files=$files $(cat "$tmp/out" "$tmp/err")"
s1=$(grep -l "^shard: '1/2'" "$sh"/e2e-shard/*.yaml)
s2=$(grep -l "^shard: '2/2'" "$sh"/e2e-shard/*.yaml)

run "$kscen" merge "$tmp/merged.yaml" "$sh"
sed -n 's/^- id: //p' "$tmp/merged.yaml" | sed "s/^'\(.*\)'$/\1/" | sort >"$tmp/merged.ids"
[ $rc = 0 ] && cmp -s "$tmp/merged.ids" "$tmp/plan.all" &&
	grep -q '^partial: false' "$tmp/merged.yaml" && grep -q '^# merged from 2 shards' "$tmp/out" &&
	pass merge_holds_the_plan ||
	fail merge_holds_the_plan "rc=$rc $(cat "$tmp/err") $(diff "$tmp/merged.ids" "$tmp/plan.all")"
run "$kscen" report "$tmp/merged.yaml"
[ $rc = 0 ] && grep -q '#   shard 2/2 on ' "$tmp/out" && grep -q '# 5 ok, 0 skipped, 0 failed' "$tmp/out" &&
	pass report_of_merged_run || fail report_of_merged_run "rc=$rc $(cat "$tmp/out" "$tmp/err")"
run "$kscen" compare "$tmp/merged.yaml" "$tmp/merged.yaml"
[ $rc = 0 ] && grep -q 'sleep 0' "$tmp/out" && pass compare_merged_runs ||
	fail compare_merged_runs "rc=$rc $(cat "$tmp/out" "$tmp/err")"

run "$kscen" merge "$tmp/part.yaml" "$s1"
[ $rc = 0 ] && grep -q '^partial: true' "$tmp/part.yaml" &&
	grep -q "^missing_shards: '2/2'" "$tmp/part.yaml" && grep -q 'missing shards: 2/2' "$tmp/err" &&
	grep -qx '# partial: shard 2/2 missing' "$tmp/out" && ! grep -q 'cut short' "$tmp/out" &&
	pass merge_missing_shard_is_partial ||
	fail merge_missing_shard_is_partial "rc=$rc $(cat "$tmp/err")"

sed "s|^shard: '1/2'|shard: '2/2'|" "$s1" >"$tmp/dup.yaml"
run "$kscen" merge -f "$tmp/x.yaml" "$tmp/dup.yaml" "$s1"
[ $rc = 2 ] && grep -q 'job .* is in ' "$tmp/err" && [ ! -e "$tmp/x.yaml" ] &&
	pass merge_duplicate_job_is_an_error || fail merge_duplicate_job_is_an_error "rc=$rc $(cat "$tmp/err")"

sed 's|^scenario_sha256: .*|scenario_sha256: 0000|' "$s2" >"$tmp/other.yaml"
run "$kscen" merge "$tmp/x.yaml" "$s1" "$tmp/other.yaml"
rc1=$rc
run "$kscen" merge --force "$tmp/x.yaml" "$s1" "$tmp/other.yaml"
[ $rc1 = 2 ] && [ $rc = 0 ] && grep -q 'differ in scenario_sha256' "$tmp/err" &&
	pass merge_mixed_scenario_needs_force || fail merge_mixed_scenario_needs_force "rc=$rc1/$rc $(cat "$tmp/err")"
sed 's|^  workload_version: .*|  workload_version: 99|' "$s2" >"$tmp/other.yaml"
run "$kscen" merge "$tmp/x2.yaml" "$s1" "$tmp/other.yaml"
[ $rc = 2 ] && grep -q 'workload_version' "$tmp/err" && pass merge_mixed_workload_version_refused ||
	fail merge_mixed_workload_version_refused "rc=$rc $(cat "$tmp/err")"
run "$kscen" merge "$tmp/x2.yaml" "$tmp/merged.yaml"
[ $rc = 2 ] && grep -q 'not a shard run' "$tmp/err" && pass merge_refuses_non_shard ||
	fail merge_refuses_non_shard "rc=$rc $(cat "$tmp/err")"

# ---- deploy/slurm on a real single-node Slurm (about 20 s) ------------------
while read -r verdict name reason; do
	case $verdict in
	PASS) pass "$name" ;;
	FAIL) fail "${name%:}" "$reason" ;;
	SKIP) skip "${name%:}" "$reason" ;;
	esac
done < <(tests/slurm.sh "$kscen" 2>&1 | grep -E '^(PASS|FAIL|SKIP) ')
finish fleet
