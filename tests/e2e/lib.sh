# lib.sh - what every tests/e2e/*.sh shares; sourced, never run.
#
#   tests/e2e/AREA.sh [KSCEN]   run one area against KSCEN (default ./kscen)
#
# Each test prints one line, PASS NAME, FAIL NAME: why, or SKIP NAME: why,
# and each script ends with "e2e-AREA: N passed, N failed, N skipped"
# (finish), the line tests/run-all.sh adds up. Run from the repository root.
set -u
kscen=$(realpath "${1:-./kscen}")
fx=tests/fixtures
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
res=$tmp/results
passed=0 failed=0 skipped=0

pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }

# run CMD...: stdout in $tmp/out, stderr in $tmp/err, the exit code in $rc
run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

# expect_rc NAME CODE: pass when the last run exited with CODE
expect_rc() {
	if [ "$rc" = "$2" ]; then pass "$1"; else
		fail "$1" "exit $rc, expected $2; stderr: $(head -c 400 "$tmp/err")"; fi
}

# ---- waiting without timing luck ------------------------------------------
# A test waits on a condition with a deadline, never for a fixed time, and
# finds its processes by a marker of its own, never by a name any process
# of the machine may have.

# wait_for SECONDS CMD...: until CMD succeeds (true), or SECONDS pass (false)
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# new_second: until the clock is past the second it is in now. Result files
# are named by the second their run started: two runs may not share one.
new_second() {
	local s
	s=$(date +%s)
	while [ "$(date +%s)" = "$s" ]; do sleep 0.02; done
}

# marked MARK: the pids of the live processes whose environment holds
# E2E_MARK=MARK. Run a command as `E2E_MARK=$tmp/NAME CMD`: it and all it
# starts carry it (setsid and double forks too), nothing else does.
marked() {
	grep -lsxzF "E2E_MARK=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}
# gone MARK: no process carries MARK (after the deadline of wait_for)
gone() { [ -z "$(marked "$1")" ]; }
# reap MARK: what carries MARK, killed (a failed test's leftovers)
reap() {
	local p
	p=$(marked "$1")
	[ -z "$p" ] || kill -9 $p 2>/dev/null
}

# gate DIR N: DIR/sleep, for DIR first in PATH: it lets its first N runs
# through and holds the next until `touch DIR/open` (60 s at most). A run of
# `sleep` commands held so is surely still in its sample N + 1 when the test
# signals it, however slow the machine.
gate() {
	mkdir -p "$1"
	rm -f "$1/count" "$1/open"
	cat >"$1/sleep" <<SH
#!/bin/sh
echo >>"$1/count"
if [ "\$(wc -l <"$1/count")" -gt $2 ]; then
	i=0
	while [ ! -e "$1/open" ] && [ \$i -lt 6000 ]; do /bin/sleep 0.01; i=\$((i + 1)); done
fi
exec /bin/sleep "\$@"
SH
	chmod +x "$1/sleep"
}

# wait_journal N GLOB: until the journals GLOB matches (a quoted glob) hold N
# sample records, for at most 10 s: 0, or 1 on the deadline
wait_journal() {
	local _
	for _ in $(seq 200); do
		# shellcheck disable=SC2086
		[ "$(cat $2 2>/dev/null | grep -c '^s ')" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# Prerequisites: each prints why not and fails when it is missing; a test
# is then `need_X || skip NAME "$(need_X)"`, or use `need NAME need_X ...`.
need_root() { [ "$(id -u)" = 0 ] || { echo "needs root"; return 1; }; }
need_btf() {
	[ -r /sys/kernel/btf/vmlinux ] || { echo "no kernel BTF (/sys/kernel/btf/vmlinux)"; return 1; }
}
need_bpf() { need_root && need_btf; }
need_perf_events() {
	[ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 1 ] ||
		{ echo "needs root or perf_event_paranoid <= 1"; return 1; }
}
need_uprobes() {
	[ -e /sys/bus/event_source/devices/uprobe ] || { echo "no uprobe PMU here"; return 1; }
}
need_setpriv() {
	command -v setpriv >/dev/null && need_root >/dev/null ||
		{ echo "needs root and setpriv (util-linux) to drop privileges"; return 1; }
}
need_tool() {
	command -v "$1" >/dev/null || { echo "needs $1 (apt-get install $2)"; return 1; }
}
# need NAME CHECK [ARGS]: true when CHECK passes; otherwise SKIP NAME: why.
need() {
	local name=$1 why
	shift
	why=$("$@") && return 0
	skip "$name" "$why"
	return 1
}

# finish AREA: the summary line; exit 1 if a test failed.
finish() {
	echo "e2e-$1: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}
