#!/bin/bash
# bpf.sh [KSCEN] - end-to-end tests: BPF uprobes and event synthesis.
. "$(dirname "$0")/lib.sh"

# ---- BPF uprobes and event synthesis -------------------------------------------
# job_statuses FILE: "id status" lines of the newest run in a results dir
job_statuses() {
	"$kscen" report --format json "$1" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
for j in json.load(sys.stdin)["jobs"]:
    print(j["id"], j["status"], j["reason"] or "")'
}
if ! why=$(need_bpf && need_uprobes); then
	skip uprobe_tiny_run "$why (the skip path is tested below)"
else
	run "$kscen" run -q -o "$res" $fx/e2e/uprobe.yaml
	expect_rc uprobe_tiny_run 0
	# ok for a probe job means its hits were counted: one per call
	job_statuses "$res/e2e-uprobe" >"$tmp/st"
	if [ "$(grep -c ' ok' "$tmp/st")" = 8 ]; then pass uprobe_every_hit_counted; else
		fail uprobe_every_hit_counted "$(cat "$tmp/st")"; fi
	grep -q 'nop/calls=1000,attach=return,probe=trace_printk' "$tmp/out" &&
	grep -Eq '[nu]secs/op [+-][0-9.,]+ to baseline [+-][0-9.,]+ to previous' "$tmp/out" &&
		pass uprobe_report_deltas || fail uprobe_report_deltas "$(cat "$tmp/out")"
	# trace_printk jobs empty the trace buffer they wrote to; mount
	# tracefs for this check when it is not, and put things back
	trace=/sys/kernel/tracing/trace mounted=
	if [ ! -e $trace ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
		mounted=1
	fi
	if [ -r $trace ]; then
		run "$kscen" run -q --no-save --compare none --filter '*trace_printk*' $fx/e2e/uprobe.yaml
		[ $rc = 0 ] && ! grep -q 'kscen uprobe hit' $trace && pass uprobe_trace_buffer_cleared ||
			fail uprobe_trace_buffer_cleared "rc=$rc; $(grep -c 'kscen uprobe hit' $trace) hits left in $trace"
	else
		skip uprobe_trace_buffer_cleared "no tracefs"
	fi
	[ -n "$mounted" ] && umount /sys/kernel/tracing
fi
# Forced skips: the reason is printed, the baseline still runs, exit code 0.
KSCEN_BTF_PATH=/nonexistent/vmlinux run "$kscen" run -q --no-save --compare none $fx/e2e/uprobe.yaml
if [ $rc = 0 ] && grep -q 'skipped: .*no kernel BTF at /nonexistent/vmlinux' "$tmp/out" &&
   grep -q '# 3 ok, 5 skipped, 0 failed' "$tmp/out"; then pass uprobe_no_btf_is_a_skip; else
	fail uprobe_no_btf_is_a_skip "rc=$rc $(cat "$tmp/out")"; fi
if why=$(need_setpriv); then
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$kscen" run -q --no-save --compare none $fx/e2e/uprobe.yaml
	if [ $rc = 0 ] && grep -q 'skipped: needs root or CAP_BPF and CAP_PERFMON' "$tmp/out"; then
		pass uprobe_unprivileged_is_a_skip; else
		fail uprobe_unprivileged_is_a_skip "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
	# with the capabilities but not root: whatever the kernel refuses is
	# a skip, never a failure
	run setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps +bpf,+perfmon --ambient-caps +bpf,+perfmon \
		"$kscen" run -q --no-save --compare none $fx/e2e/uprobe.yaml
	[ $rc = 0 ] && grep -q ', 0 failed' "$tmp/out" && pass uprobe_caps_without_root_never_fails ||
		fail uprobe_caps_without_root_never_fails "rc=$rc $(cat "$tmp/out")"
else
	skip uprobe_unprivileged_is_a_skip "$why"
fi

run "$kscen" run -q -o "$res" $fx/e2e/synthesize.yaml
expect_rc synthesize_tiny_run 0
"$kscen" report --format json "$res/e2e-synthesize" >"$tmp/json" 2>/dev/null
if /usr/bin/python3 - "$tmp/json" <<'PY'
import json, sys
jobs = {j["id"]: j for j in json.load(open(sys.argv[1]))["jobs"]}
assert len(jobs) == 6 and all(j["status"] == "ok" for j in jobs.values()), jobs
rec = lambda i: jobs[i]["metrics"][1]["median"]
# Under ASan (make asan sets ASAN_OPTIONS) stdio's own allocations map new
# allocator regions in the sample process: data mappings then differ.
import os
for d in ("false", "true") if not os.environ.get("ASAN_OPTIONS") else ("false",):
    a, b = (rec("self/loops=20,data_mmap=%s,reader=%s" % (d, r)) for r in ("stdio", "buffered"))
    assert a == b and a >= 2, (d, a, b)
assert rec("self/loops=20,data_mmap=true,reader=stdio") > rec("self/loops=20,data_mmap=false,reader=stdio")
assert rec("all/loops=1,scope=all,reader=stdio") > rec("self/loops=20,data_mmap=false,reader=stdio")
PY
then pass synthesize_readers_agree; else fail synthesize_readers_agree "$(head -c 600 "$tmp/json")"; fi
finish bpf
