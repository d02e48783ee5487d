#!/bin/bash
# isolation.sh [KSCEN] - end-to-end tests: failures are isolated: a crash, a hang and a bad exit beside a good job.
. "$(dirname "$0")/lib.sh"

# ---- failures are isolated -----------------------------------------------------
E2E_MARK=$tmp/crash run "$kscen" run -q -o "$res" $fx/e2e/crash.yaml
expect_rc run_crash_exit_3 3
file=$(ls "$res"/e2e-crash/*.yaml 2>/dev/null | head -n1)
"$kscen" report --format json "$file" >"$tmp/json" 2>/dev/null
if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
jobs = {j["name"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
g = jobs["good"]
assert g["status"] == "ok" and len(g["metrics"][0]["samples"]) == 2, g
assert jobs["segv"]["status"] == "failed" and "SIGSEGV" in jobs["segv"]["reason"], jobs["segv"]
assert jobs["hang"]["status"] == "failed" and "timed out" in jobs["hang"]["reason"], jobs["hang"]
assert jobs["abort"]["status"] == "failed" and "status 7" in jobs["abort"]["reason"], jobs["abort"]
PY
then pass crash_and_hang_beside_good_job; else fail crash_and_hang_beside_good_job "$(cat "$tmp/json")"; fi
# the hung job's sleep 600 was killed at its timeout, with all the run started
wait_for 10 gone "$tmp/crash" && pass hang_killed ||
	fail hang_killed "still running: $(marked "$tmp/crash" | xargs -r ps -o pid,args -p)"
reap "$tmp/crash"

# ---- without a cgroup: said, not silent ----------------------------------------
# An unprivileged runner cannot make the sample cgroup: the run goes on,
# without the cgroup's metrics, and says so once, with the reason.
if why=$(need_setpriv); then
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$kscen" run --no-save --compare none $fx/e2e/tiny.yaml
	if [ $rc = 0 ] && [ "$(grep -c '^kscen: samples run without a cgroup (cannot create a cgroup in /[^:]*: Permission denied): no cgroup_cpu or cgroup_memory_peak' "$tmp/err")" = 1 ] &&
	   ! grep -q cgroup_cpu "$tmp/out"; then
		pass no_cgroup_is_said
	else
		fail no_cgroup_is_said "rc=$rc $(cat "$tmp/err")"
	fi
else
	skip no_cgroup_is_said "$why"
fi
finish isolation
