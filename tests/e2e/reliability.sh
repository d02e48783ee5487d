#!/bin/bash
# reliability.sh [KSCEN] - end-to-end tests: the guarantees of docs/reliability.md.
. "$(dirname "$0")/lib.sh"

rel=$tmp/rel
mkdir -p "$rel"

# ---- only regular files are read ----------------------------------------
mkfifo "$rel/fifo.yaml"
run timeout 10 "$kscen" validate "$rel/fifo.yaml"
[ $rc = 2 ] && grep -q 'fifo.yaml:1:1: not a regular file' "$tmp/err" &&
	pass fifo_scenario_exit_2 || fail fifo_scenario_exit_2 "rc=$rc $(cat "$tmp/err")"
run timeout 10 "$kscen" validate /dev/zero
[ $rc = 2 ] && grep -q '/dev/zero:1:1: not a regular file' "$tmp/err" &&
	pass device_scenario_exit_2 || fail device_scenario_exit_2 "rc=$rc $(cat "$tmp/err")"
/usr/bin/python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$rel/sock.yaml"
run timeout 10 "$kscen" validate "$rel/sock.yaml"
[ $rc = 2 ] && grep -q 'sock.yaml:1:1: ' "$tmp/err" &&
	pass socket_scenario_exit_2 || fail socket_scenario_exit_2 "rc=$rc $(cat "$tmp/err")"
run timeout 10 "$kscen" report "$rel/fifo.yaml"
[ $rc = 2 ] && grep -q 'not a regular file' "$tmp/err" &&
	pass fifo_result_report_exit_2 || fail fifo_result_report_exit_2 "rc=$rc $(cat "$tmp/err")"
run timeout 10 "$kscen" compare "$rel/fifo.yaml" /dev/zero
[ $rc = 2 ] && grep -q 'not a regular file' "$tmp/err" &&
	pass fifo_result_compare_exit_2 || fail fifo_result_compare_exit_2 "rc=$rc $(cat "$tmp/err")"
run timeout 10 "$kscen" run -q --no-save --compare "$rel/fifo.yaml" $fx/e2e/tiny.yaml
[ $rc = 2 ] && grep -q 'not a regular file' "$tmp/err" && [ ! -s "$tmp/out" ] &&
	pass fifo_compare_path_exit_2 || fail fifo_compare_path_exit_2 "rc=$rc $(cat "$tmp/err")"

# ---- resume after SIGKILL; SIGTERM 143, SIGINT 130 ------------------------
cat >"$rel/slow.yaml" <<'YAML'
scenario: rel-slow
repeat: 4
warmup: 1
jobs:
  - name: s
    workload: exec
    params:
      command: ["sleep 0.05", "sleep 0.06"]
YAML
# The samples are `sleep`s: each run below is held in its sample N + 1 by
# the gate (lib.sh) until the test has signalled it, however slow the
# machine, and the journal then holds exactly N samples.
# journal_holds N: the journal under $rel/res holds N sample records
journal_holds() {
	[ "$(cat "$rel"/res/rel-slow/*.journal 2>/dev/null | grep -c '^s ')" -ge "$1" ]
}
# held_run N ARGS...: kscen run ARGS in the background ($pid), held after N
# samples; false when it did not get there within a minute
held_run() {
	local n=$1
	shift
	gate "$rel/gate" "$n"
	PATH=$rel/gate:$PATH "$kscen" run "$@" >/dev/null 2>"$tmp/err" &
	pid=$!
	wait_for 60 journal_holds "$n"
}
held_run 4 -q -o "$rel/res" --compare none "$rel/slow.yaml"
# wait_samples N: until the journal under $rel/res holds N sample records
wait_samples() { wait_journal "$1" "$rel/res/rel-slow/*.journal"; }
{ kill -9 $pid; wait $pid; } 2>/dev/null
touch "$rel/gate/open"
journal=$(ls "$rel"/res/rel-slow/*.journal 2>/dev/null)
taken=$(grep '^s 1 0 ' "$journal" 2>/dev/null | cut -d' ' -f6)
run "$kscen" run --resume "$journal"
if [ $rc = 0 ] && [ -n "$taken" ] && [ ! -e "$journal" ] &&
   [ "$(ls "$rel"/res/rel-slow/ | wc -l)" = 1 ] &&
   /usr/bin/python3 - "$rel"/res/rel-slow/*.yaml "$taken" <<'PY'
import sys, yaml
r = yaml.safe_load(open(sys.argv[1]))
assert r["partial"] is False, r["partial"]
ids = [j["id"] for j in r["jobs"]]
assert ids == ["s/command=sleep 0.05", "s/command=sleep 0.06"], ids
for j in r["jobs"]:
    assert len(j["metrics"][0]["samples"]) == 4, j
    # 1 warmup + 4 samples of at least 50 ms, replayed ones included
    assert j["seconds"] >= 5 * 0.05, j["seconds"]
# the sample taken before the kill (round 1 is the first recorded) is kept
assert r["jobs"][0]["metrics"][0]["samples"][0] == float.fromhex(sys.argv[2])
PY
then pass resume_after_sigkill_one_complete_result; else
	fail resume_after_sigkill_one_complete_result "rc=$rc journal=$journal taken=$taken $(ls "$rel/res/rel-slow") $(cat "$tmp/err")"; fi

# SIGHUP (a terminal closed, an ssh session gone) as SIGTERM: it used to
# end the run with 129 and no partial result.
for sig in TERM INT HUP; do
	rm -rf "$rel/res"
	held_run 4 -q -o "$rel/res" --compare none "$rel/slow.yaml"
	kill -$sig $pid
	wait $pid
	rc=$?
	touch "$rel/gate/open"
	want=$(case $sig in TERM) echo 143 ;; INT) echo 130 ;; HUP) echo 129 ;; esac)
	journal=$(ls "$rel"/res/rel-slow/*.journal 2>/dev/null)
	if [ $rc = $want ] && [ -n "$journal" ] && grep -q '^partial: true' "$rel"/res/rel-slow/*.yaml &&
	   grep -q "kscen run --resume $journal" "$tmp/err"; then
		pass "sig${sig,,}_exits_${want}_keeps_samples"
	else
		fail "sig${sig,,}_exits_${want}_keeps_samples" "rc=$rc $(ls "$rel/res/rel-slow") $(cat "$tmp/err")"
	fi
done
# --resume --no-save: the run finishes, nothing is stored, the journal
# stays for a resume that saves (and is closed: ASan's leak check)
before=$(ls "$rel"/res/rel-slow/)
run "$kscen" run -q --no-save --resume "$journal"
[ $rc = 0 ] && [ -e "$journal" ] && [ "$(ls "$rel"/res/rel-slow/)" = "$before" ] &&
	pass resume_no_save_keeps_journal ||
	fail resume_no_save_keeps_journal "rc=$rc $(ls "$rel/res/rel-slow") $(cat "$tmp/err")"
run "$kscen" run -q --resume "$journal"
[ $rc = 0 ] && [ ! -e "$journal" ] && [ "$(ls "$rel"/res/rel-slow/ | wc -l)" = 1 ] &&
	grep -q '^partial: false' "$rel"/res/rel-slow/*.yaml &&
	pass resume_replaces_partial_result || fail resume_replaces_partial_result "rc=$rc $(ls "$rel/res/rel-slow") $(cat "$tmp/err")"
printf 'kscen-journal 1\ngarbage\n' >"$rel/bad.journal"
run "$kscen" run --resume "$rel/bad.journal"
[ $rc = 2 ] && grep -q 'bad.journal:2:1: not a kscen journal' "$tmp/err" &&
	pass resume_bad_journal_exit_2 || fail resume_bad_journal_exit_2 "rc=$rc $(cat "$tmp/err")"
# A shard resumes as the shard it was: its journal names it and its jobs,
# which are taken as listed (not balanced again by the runs stored since),
# and merge joins it with the other shard. It used to stop at "expands to
# 2 jobs, not 1".
rm -rf "$rel/res"
sed 's/^repeat: 4/repeat: 20/' "$rel/slow.yaml" >"$rel/shard.yaml"	# 1 s a shard
held_run 2 -q -o "$rel/res" --compare none --shard 1/2 "$rel/shard.yaml"
{ kill -9 $pid; wait $pid; } 2>/dev/null
touch "$rel/gate/open"
journal=$(ls "$rel"/res/rel-slow/*.journal 2>/dev/null)
"$kscen" run -q -o "$rel/res" --compare none --shard 2/2 "$rel/shard.yaml" >/dev/null 2>&1
named=$(grep -cx 'shard 1/2' "$journal" 2>/dev/null)
run "$kscen" run -q --resume "$journal"
if [ $rc = 0 ] && [ "$named" = 1 ] && [ ! -e "$journal" ] &&
   [ "$(grep -l "^shard: '1/2'" "$rel"/res/rel-slow/*.yaml | wc -l)" = 1 ] &&
   "$kscen" merge "$rel/merged.yaml" "$rel"/res/rel-slow/*.yaml >"$tmp/out" 2>"$tmp/err" &&
   grep -q '^# 2 ok, 0 skipped, 0 failed' "$tmp/out"; then
	pass resume_sharded_run
else
	fail resume_sharded_run "rc=$rc $(ls "$rel/res/rel-slow") $(cat "$tmp/err" "$tmp/out")"
fi
# A labeled run resumes under its label (the journal keeps it): it used to
# be saved without one, so --compare label: did not find it.
rm -rf "$rel/res"
held_run 2 -q -o "$rel/res" --compare none --label lab "$rel/slow.yaml"
{ kill -9 $pid; wait $pid; } 2>/dev/null
touch "$rel/gate/open"
journal=$(ls "$rel"/res/rel-slow/*.journal 2>/dev/null)
run "$kscen" run -q --resume "$journal"
saved=$(ls "$rel"/res/rel-slow/)
[ $rc = 0 ] && [ -n "$journal" ] && [ ! -e "$journal" ] &&
	[ "$(echo "$saved" | grep -c '+lab\.yaml$')" = 1 ] && [ "$(echo "$saved" | wc -l)" = 1 ] &&
	grep -q '^label: lab' "$rel"/res/rel-slow/*.yaml &&
	pass resume_keeps_label || fail resume_keeps_label "rc=$rc $saved $(cat "$tmp/err")"
# The runner ends after saving its result and before removing its journal
# (here: a preloaded unlink() that refuses journals). A resume finds the
# run already saved, removes the journal and saves no second copy.
if command -v cc >/dev/null; then
	rm -rf "$rel/res"
	cat >"$rel/keepj.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
int unlink(const char *p)
{
	size_t n = strlen(p);

	if (n > 8 && !strcmp(p + n - 8, ".journal")) {
		errno = EPERM;
		return -1;
	}
	return syscall(SYS_unlink, p);
}
C
	cc -shared -fPIC -o "$rel/keepj.so" "$rel/keepj.c"
	sed 's/^repeat: 4/repeat: 2/' "$rel/slow.yaml" >"$rel/fast.yaml"
	LD_PRELOAD="$rel/keepj.so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$kscen" run -q -o "$rel/res" --compare none "$rel/fast.yaml" >/dev/null 2>&1
	journal=$(ls "$rel"/res/rel-slow/*.journal 2>/dev/null)
	before=$(cat "$rel"/res/rel-slow/*.yaml 2>/dev/null | sha256sum)
	run "$kscen" run -q --resume "$journal"
	saved=$(ls "$rel"/res/rel-slow/)
	[ $rc = 0 ] && [ -n "$journal" ] && [ ! -e "$journal" ] && [ "$(echo "$saved" | wc -l)" = 1 ] &&
		[ "$(cat "$rel"/res/rel-slow/*.yaml | sha256sum)" = "$before" ] &&
		grep -q 'not saved again' "$tmp/err" &&
		pass resume_of_saved_run_saves_no_copy ||
		fail resume_of_saved_run_saves_no_copy "rc=$rc journal=$journal: $saved $(cat "$tmp/err")"
else
	skip resume_of_saved_run_saves_no_copy "no C compiler for the unlink() shim"
fi

# A journal that cannot be synced after its creation (a preloaded
# fdatasync() failing with EIO on it from its second call): said once, the
# run goes on and its result is saved.
if command -v cc >/dev/null; then
	cat >"$rel/syncj.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
int fdatasync(int fd)
{
	static int calls;
	char l[64], p[4096];
	ssize_t n;

	snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
	n = readlink(l, p, sizeof(p) - 1);
	if (n > 8 && !memcmp(p + n - 8, ".journal", 8) && calls++) {
		errno = EIO;
		return -1;
	}
	return syscall(SYS_fdatasync, fd);
}
C
	cc -shared -fPIC -o "$rel/syncj.so" "$rel/syncj.c"
	# one job, 8 rounds of 0.3 s: the first sync is a second in
	cat >"$rel/sync.yaml" <<'YAML'
scenario: rel-sync
repeat: 8
jobs:
  - name: s
    workload: exec
    params:
      command: "sleep 0.3"
YAML
	LD_PRELOAD="$rel/syncj.so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		"$kscen" run -q -o "$rel/sres" --compare none "$rel/sync.yaml" >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc = 0 ] && [ "$(grep -c 'journal' "$tmp/err")" = 1 ] &&
	   grep -q "^kscen: journal $rel/sres/rel-sync/.*\.journal: Input/output error; the run goes on, but could not be resumed if cut short$" "$tmp/err" &&
	   [ "$(ls "$rel"/sres/rel-sync/*.yaml | wc -l)" = 1 ] && ! ls "$rel"/sres/rel-sync/*.journal >/dev/null 2>&1 &&
	   grep -q '^    samples: \[0\.3' "$rel"/sres/rel-sync/*.yaml; then
		pass journal_sync_error_said_once
	else
		fail journal_sync_error_said_once "rc=$rc $(ls "$rel/sres/rel-sync" 2>&1) $(cat "$tmp/err")"
	fi
else
	skip journal_sync_error_said_once "no C compiler for the fdatasync() shim"
fi

# ---- never exit 0 without the results: a full disk at the end ------------
if [ "$(id -u)" = 0 ] && mkdir -p "$rel/full" && mount -t tmpfs -o size=64k tmpfs "$rel/full" 2>/dev/null; then
	mkdir -p "$rel/full/rel-slow"
	echo "an earlier run" >"$rel/full/rel-slow/20200101T000000Z-earlier.yaml"
	sum=$(md5sum <"$rel/full/rel-slow/20200101T000000Z-earlier.yaml")
	# leave about 4 KiB: the journal fits, the result does not
	dd if=/dev/zero of="$rel/full/fill" bs=4k count=14 2>/dev/null
	run "$kscen" run -q -o "$rel/full" --compare none "$rel/slow.yaml"
	journal=$(ls "$rel"/full/rel-slow/*.journal 2>/dev/null)
	if [ $rc = 4 ] && grep -q 'No space left on device (errno 28)' "$tmp/err" &&
	   [ -n "$journal" ] && [ "$(grep -c '^s ' "$journal")" = 10 ] &&
	   [ "$(md5sum <"$rel/full/rel-slow/20200101T000000Z-earlier.yaml")" = "$sum" ] &&
	   [ "$(ls "$rel/full/rel-slow" | grep -c yaml)" = 1 ]; then
		pass save_fails_on_full_disk_exit_4_keeps_journal
	else
		fail save_fails_on_full_disk_exit_4_keeps_journal "rc=$rc $(ls -la "$rel/full/rel-slow") $(cat "$tmp/err")"
	fi
	rm -f "$rel/full/fill"
	run "$kscen" run -q --resume "$journal"
	[ $rc = 0 ] && [ ! -e "$journal" ] && [ "$(ls "$rel/full/rel-slow" | grep -c yaml)" = 2 ] &&
		pass resume_saves_after_full_disk || fail resume_saves_after_full_disk "rc=$rc $(cat "$tmp/err")"
	umount "$rel/full"
else
	skip save_fails_on_full_disk_exit_4_keeps_journal "needs root to mount a small tmpfs"
fi

# ---- nothing outlives a job ------------------------------------------------
# Each job leaves a process behind in its own way; the run carries the
# test's marker (lib.sh), which they inherit: afterwards none may remain.
cat >"$rel/escape.yaml" <<YAML
scenario: rel-escape
repeat: 1
warmup: 0
jobs:
  - name: setsid
    workload: exec
    params: {command: "setsid sleep 601 >/dev/null 2>&1 < /dev/null &"}
  - name: double-fork
    workload: exec
    params: {command: "sh -c '(sleep 602 >/dev/null 2>&1 &) &'"}
  - name: ignores-term
    workload: exec
    params: {command: "setsid sh -c 'trap \"\" TERM HUP; sleep 603; :' >/dev/null 2>&1 &"}
YAML
E2E_MARK=$rel/escape run "$kscen" run -q --no-save --compare none "$rel/escape.yaml"
# killed by the runner before it returned; reaped by init a moment later
wait_for 10 gone "$rel/escape"
left=$(marked "$rel/escape" | wc -l)
[ $rc = 0 ] && [ "$left" = 0 ] && pass escaped_processes_killed_after_sample ||
	fail escaped_processes_killed_after_sample "rc=$rc, $left left: $(marked "$rel/escape" | xargs -r ps -o pid,args -p)"
reap "$rel/escape"

if [ -n "$(ls -d /sys/fs/cgroup/kscen-* /run/kscen/cgroup2 2>/dev/null)" ] ||
   grep -q 'cgroup_cpu' "$tmp/out"; then
	# in an exec job, spelled as its wall_time is (s, ms, us), never "usecs"
	grep -Eq '^ +[0-9.,]+ (s|ms|us|ns) \(cgroup_cpu\)' "$tmp/out" &&
		pass cgroup_cpu_is_an_extra_metric || fail cgroup_cpu_is_an_extra_metric "$(cat "$tmp/out")"
	# Each sample's cgroup_cpu is its own, not the sum so far (one
	# cgroup may serve every sample): a CPU-bound shell loop's stays
	# within its wall time, and the fifth is not five times the first.
	cat >"$rel/burn.yaml" <<'YAML'
scenario: rel-burn
repeat: 5
warmup: 0
jobs:
  - name: burn
    workload: exec
    params: {command: "i=0; while [ $i -lt 5000 ]; do i=$((i+1)); done"}
YAML
	run "$kscen" run -q -o "$rel/burnres" --compare none "$rel/burn.yaml"
	f=$(ls "$rel"/burnres/rel-burn/*.yaml 2>/dev/null | head -1)
	verdict=$([ -n "$f" ] && awk '
		/- name: wall_time/ { m = "w" } /- name: cgroup_cpu/ { m = "c" }
		/^ +samples: \[/ && m != "" {
			s = $0; sub(/.*\[/, "", s); sub(/\].*/, "", s)
			n = split(s, v, /, */)
			for (i = 1; i <= n; i++) x[m, i] = v[i] + 0
			cnt[m] = n; m = ""
		}
		END {
			if (cnt["w"] != 5 || cnt["c"] != 5) { print "samples: " cnt["w"] " " cnt["c"]; exit }
			for (i = 1; i <= 5; i++)
				if (x["c", i] <= 0 || x["c", i] > x["w", i] * 1.5e6 + 2000)
					{ print "sample " i ": cgroup_cpu " x["c", i] " us, wall " x["w", i] " s"; exit }
			print "ok"
		}' "$f")
	[ $rc = 0 ] && [ "$verdict" = ok ] && pass cgroup_cpu_is_each_samples_own ||
		fail cgroup_cpu_is_each_samples_own "rc=$rc: ${verdict:-no result}"
	# the runner SIGKILLed mid-sample: its guard kills the sample's cgroup
	cat >"$rel/killed.yaml" <<YAML
scenario: rel-killed
repeat: 1
warmup: 0
jobs:
  - name: daemon
    workload: exec
    params: {command: "setsid sh -c 'trap \"\" TERM; sleep 604' >/dev/null 2>&1 & sleep 605"}
YAML
	E2E_MARK=$rel/killed "$kscen" run -q --no-save --compare none "$rel/killed.yaml" \
		>/dev/null 2>&1 &
	pid=$!
	# both sleeps started: the runner, its fork server, the sample's shell
	# and the two sleeps carry the marker
	sleeps() { for p in $(marked "$rel/killed"); do cat /proc/$p/comm; done 2>/dev/null | grep -cx sleep; }
	wait_for 60 eval '[ "$(sleeps)" -ge 2 ]'
	before=$(sleeps)
	{ kill -9 $pid; wait $pid; } 2>/dev/null
	wait_for 10 gone "$rel/killed"
	left=$(marked "$rel/killed" | wc -l)
	[ "$before" -ge 2 ] && [ "$left" = 0 ] && pass runner_sigkill_kills_escaped_daemon ||
		fail runner_sigkill_kills_escaped_daemon "$before sleeps before, $left processes after"
	reap "$rel/killed"
else
	skip cgroup_cpu_is_each_samples_own "no cgroup v2 (not mounted, not mountable)"
	skip runner_sigkill_kills_escaped_daemon "no cgroup v2 (not mounted, not mountable)"
fi

# ---- test hooks do not leak into measurements -----------------------------
KSCEN_BTF_PATH=/nonexistent/vmlinux run "$kscen" run -q -o "$rel/hooks" --compare none $fx/e2e/tiny.yaml
grep -q '^# test hooks set, changing what is measured: KSCEN_BTF_PATH=/nonexistent/vmlinux' "$tmp/out" &&
	grep -q '^test_hooks: KSCEN_BTF_PATH=/nonexistent/vmlinux' "$rel"/hooks/e2e-tiny/*.yaml &&
	"$kscen" report "$rel/hooks/e2e-tiny" | grep -q '^# test hooks set' &&
	pass test_hooks_recorded_and_reported || fail test_hooks_recorded_and_reported "rc=$rc $(head -5 "$tmp/out")"
(unset $(env | sed -n 's/^\(KSCEN_[A-Za-z0-9_]*\)=.*/\1/p'); "$kscen" run -q --no-save --compare none $fx/e2e/tiny.yaml) >"$tmp/out" 2>&1
grep -q 'test hooks' "$tmp/out" && fail no_test_hooks_no_line "$(head -5 "$tmp/out")" || pass no_test_hooks_no_line

# ---- bounded memory: the repeat asked for allocates nothing up front -------
# 2,000 jobs x -r 1000000 under a 1 GiB address-space limit: sized by the
# repeat, the sample arrays alone would be 16 GB. SIGINT ends it promptly.
{
	echo "scenario: rel-big"
	echo "jobs:"
	echo "  - name: m"
	echo "    workload: exec"
	echo "    params:"
	echo "      command: [$(seq -f '"true %g"' -s, 1 20)]"
	echo "      metric_name: [$(seq -f 'm%g' -s, 1 100)]"
} >"$rel/big.yaml"
# ASan reserves terabytes of address space: no limit for its build.
vlimit=1048576
grep -qa __asan_init "$kscen" && vlimit=unlimited
(ulimit -v $vlimit && exec "$kscen" run -r 1000000 -w 0 --no-save --compare none \
	"$rel/big.yaml") >/dev/null 2>"$tmp/err" &
pid=$!
# the first round under way (its line on stderr), then SIGINT: a run of
# 2e9 samples ends within seconds, not hours (the bound is for a loaded
# machine; on a quiet one it takes a few hundred ms)
wait_for 60 grep -q 'round 1/' "$tmp/err"
t0=$(date +%s%N)
kill -INT $pid
wait $pid
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc = 130 ] && [ $ms -lt 20000 ] && pass repeat_1e6_bounded_memory_sigint_prompt ||
	fail repeat_1e6_bounded_memory_sigint_prompt "rc=$rc after SIGINT: $ms ms; $(head -c 300 "$tmp/err")"

# a journal whose scenario changed since is refused, nothing run
mkdir -p "$rel/chg/rel-slow"
printf '%s\n' 'kscen-journal 1' "scenario_file $rel/slow.yaml" \
	"scenario_sha256 $(printf 0%.0s $(seq 64))" 'started 2026-12-02T10:00:00Z' \
	'repeat 4' 'warmup 1' 'max_repeat 30' 'until_ci 0x0p+0' 'max_jobs 100000' 'compare none' \
	'jobs 2' 'job s/command=sleep%200.05' 'job s/command=sleep%200.06' 'samples' \
	>"$rel/chg/rel-slow/x.journal"
run "$kscen" run --resume "$rel/chg/rel-slow/x.journal"
[ $rc = 2 ] && grep -q 'changed since the run started' "$tmp/err" && [ ! -s "$tmp/out" ] &&
	pass resume_changed_scenario_exit_2 || fail resume_changed_scenario_exit_2 "rc=$rc $(cat "$tmp/err")"

# power loss mid-write: a torn last record is dropped, the rest replayed
mkdir -p "$rel/torn/rel-slow"
{
	printf '%s\n' 'kscen-journal 1' "scenario_file $rel/slow.yaml" \
		"scenario_sha256 $(sha256sum <"$rel/slow.yaml" | cut -d' ' -f1)" \
		'started 2026-12-02T10:00:00Z' 'repeat 4' 'warmup 1' 'max_repeat 30' \
		'until_ci 0x0p+0' 'max_jobs 100000' 'compare none' 'jobs 2' \
		'job s/command=sleep%200.05' 'job s/command=sleep%200.06' 'samples' \
		's 0 0 0 1 0x1p-4 %' 's 0 1 0 1 0x1p-4 % 0x1p+1' 's 1 1 0 1 0x1.5p-3 %'
	printf 's 1 0 0 1 0x1.8'
} >"$rel/torn/rel-slow/x.journal"
run "$kscen" run -q --resume "$rel/torn/rel-slow/x.journal"
# records with and without the sample's seconds (2 s recorded for one)
[ $rc = 0 ] && grep -q '0.1640625' "$rel"/torn/rel-slow/*.yaml &&
	/usr/bin/python3 -c '
import sys, yaml
j = yaml.safe_load(open(sys.argv[1]))["jobs"]
assert j[1]["seconds"] >= 2 and j[0]["seconds"] < 2, j' "$rel"/torn/rel-slow/*.yaml &&
	pass resume_drops_torn_record || fail resume_drops_torn_record "rc=$rc $(cat "$tmp/err")"
finish reliability
