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
