#!/bin/bash
# vm.sh KSCEN [all|quick] - end-to-end tests of `kscen vm` and `kscen ab`: real
# kernels (two Debian kernel packages, fetched with apt-get download into
# $KSCEN_TEST_CACHE, default /var/cache/kscen-test, and unpacked with
# dpkg-deb, never installed) booted under qemu-system-x86_64, under TCG
# when KVM does not run guests.
#
# A TCG boot takes 15-25 s on a 2-vCPU VM, so `make test` (tests/e2e/vm.sh sources
# this file) runs the host-side tests and one boot; `make test-vm` runs this
# file with "all": ab with both kernels and the faults (panic, hang, wrong
# and missing modules, a guest that dies or hangs mid-run), 2-4 minutes
# with the machine's load.
if [ -z "${kscen:-}" ]; then	# run by itself, not sourced by tests/e2e/vm.sh
	set -u
	kscen=$(realpath "${1:-./kscen}")
	vm_all=; [ "${2:-all}" = all ] && vm_all=1	# "quick": as in make test
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	passed=0 failed=0 skipped=0
	pass() { passed=$((passed + 1)); echo "PASS $1"; }
	fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
	skip() { skipped=$((skipped + 1)); echo "SKIP $1: $2"; }
	run() { "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
	vm_standalone=1
else
	vm_all=${KSCEN_TEST_VM_ALL:-}
	vm_standalone=
fi
vfx=tests/fixtures/vm
cache=${KSCEN_TEST_CACHE:-/var/cache/kscen-test}
kver_a=6.1.0-47-amd64 kver_b=6.1.0-50-amd64
# The guest mounts tmpfs over /tmp and /run: a checkout there cannot be
# shared into it, and kscen vm refuses it. Say so instead of failing.
case "$(pwd -P)/" in
/tmp/*|/run/*)
	skip vm_tests "the checkout $(pwd -P) is under /tmp or /run, which a guest mounts a tmpfs over"
	if [ -n "$vm_standalone" ]; then
		echo "vm: $passed passed, $failed failed, $skipped skipped"
		exit 0
	fi
	return 0 ;;
esac

# fetch_kernel VERSION: unpack linux-image-VERSION into $cache once; prints why not
fetch_kernel() {
	local pkg=linux-image-$1 d=$cache/linux-image-$1
	[ -r "$d/boot/vmlinuz-$1" ] && return 0
	mkdir -p "$cache" 2>/dev/null || { echo "cannot create $cache"; return 1; }
	if ! ls "$cache/${pkg}"_*.deb >/dev/null 2>&1; then
		(cd "$cache" && apt-get download "$pkg" >/dev/null 2>&1) ||
			{ echo "apt-get download $pkg failed (no network or no such package)"; return 1; }
	fi
	mkdir -p "$d.tmp" && dpkg-deb -x "$cache/${pkg}"_*.deb "$d.tmp" && mv "$d.tmp" "$d" ||
		{ rm -rf "$d.tmp"; echo "dpkg-deb -x $pkg failed"; return 1; }
}

# no_stray NAME: fail NAME when a qemu of this test (its TMPDIR) still runs
no_stray() {
	if grep -lsa "$tmp/vmtmp" /proc/[0-9]*/cmdline >/dev/null 2>&1; then
		fail "$1" "a qemu process outlived kscen"; return 1; fi
	return 0
}

vm_why=
command -v qemu-system-x86_64 >/dev/null || vm_why="qemu-system-x86_64 is not installed (make deps)"
[ -z "$vm_why" ] && [ ! -x /bin/busybox ] && vm_why="busybox-static is not installed (make deps)"
[ -z "$vm_why" ] && vm_why=$(fetch_kernel $kver_a) && vm_why=$(fetch_kernel $kver_b)
ka=$cache/linux-image-$kver_a/boot/vmlinuz-$kver_a
kb=$cache/linux-image-$kver_b/boot/vmlinuz-$kver_b
mkdir -p "$tmp/vmtmp"
export TMPDIR=$tmp/vmtmp

# ---- without qemu ----------------------------------------------------------
run "$kscen" vm --help
[ $rc = 0 ] && grep -q -- '--kernel BZIMAGE' "$tmp/out" && pass vm_help || fail vm_help "rc=$rc"
run "$kscen" ab --help
[ $rc = 0 ] && grep -q -- 'usage: kscen ab --kernel A --kernel B' "$tmp/out" && pass ab_help || fail ab_help "rc=$rc"
run "$kscen" --help
[ $rc = 0 ] && grep -q '^  ab ' "$tmp/out" && ! grep -q '^  agent' "$tmp/out" &&
	pass help_lists_vm_ab_not_agent || fail help_lists_vm_ab_not_agent "$(cat "$tmp/out")"
run "$kscen" ab --kernel x "$vfx/tiny.yaml"
[ $rc = 2 ] && grep -q 'needs --kernel A --kernel B' "$tmp/err" && pass ab_needs_two_kernels ||
	fail ab_needs_two_kernels "rc=$rc $(cat "$tmp/err")"
run "$kscen" vm --kernel /etc/hostname -- run "$vfx/tiny.yaml"
[ $rc = 2 ] && grep -q 'is not a bzImage' "$tmp/err" && pass vm_not_a_bzimage ||
	fail vm_not_a_bzimage "rc=$rc $(cat "$tmp/err")"
# The guest's /run is a tmpfs of its own (its /tmp shows the host's): a
# scenario there is refused before booting.
cp "$vfx/tiny.yaml" /run/kscen-vm-test-$$.yaml
run "$kscen" vm --kernel /nonexistent -- run /run/kscen-vm-test-$$.yaml
rm -f /run/kscen-vm-test-$$.yaml
[ $rc = 2 ] && grep -q "/run/kscen-vm-test-$$.yaml is under /run, which the guest" "$tmp/err" &&
	pass vm_scenario_under_run_refused || fail vm_scenario_under_run_refused "rc=$rc $(cat "$tmp/err")"
# Modules the guests would not see: KSCEN_MODULE_PATH (passed to the guest
# otherwise) and, for ab, a scenario's modules: entry, both under /run.
vmods=$(mktemp -d /run/kscen-vmods.XXXXXX)
KSCEN_MODULE_PATH=$vmods run "$kscen" vm --kernel /nonexistent -- run "$vfx/tiny.yaml"
[ $rc = 2 ] && grep -q "KSCEN_MODULE_PATH: $(realpath "$vmods") is under /run" "$tmp/err" &&
	pass vm_module_path_under_run_refused || fail vm_module_path_under_run_refused "rc=$rc $(cat "$tmp/err")"
if make -s examples >/dev/null 2>&1 && cp examples/example.so "$vmods/example.so"; then
	printf 'scenario: vm-mod\nmodules: [%s]\njobs:\n  - {name: g, workload: example.getpid}\n' \
		"$vmods/example.so" >"$tmp/vmod.yaml"
	run "$kscen" ab --kernel /nonexistent --kernel /nonexistent "$tmp/vmod.yaml"
	[ $rc = 2 ] && grep -q "the module $(realpath "$vmods/example.so") (workload example.getpid) is under /run" "$tmp/err" &&
		pass ab_module_under_run_refused || fail ab_module_under_run_refused "rc=$rc $(cat "$tmp/err")"
else
	fail ab_module_under_run_refused "make examples failed"
fi
rm -rf "$vmods"
# the agent's protocol, on stdio: hello, one sample, a bad request, quit
printf 'sample 0 5000000000\nsample 9 1\nquit\n' | "$kscen" agent --stdio "$vfx/tiny.yaml" >"$tmp/out" 2>"$tmp/err"
rc=$?
sha=$(sha256sum "$vfx/tiny.yaml" | cut -d' ' -f1)
if [ $rc = 0 ] && grep -q "^hello $sha 2 $(uname -r)	" "$tmp/out" &&
	grep -q '^out 0 4 [0-9]* 12.5 ' "$tmp/out" && grep -q '^out -22 0 0	bad request' "$tmp/out" &&
	[ "$(tail -1 "$tmp/out")" = bye ]; then pass agent_protocol_stdio; else
	fail agent_protocol_stdio "rc=$rc $(cat "$tmp/out" "$tmp/err")"; fi
# cleanup: runs where prepare: ran: in the agent, once, when kscen ab quits
cat >"$tmp/prep.yaml" <<YAML
scenario: vm-prep
jobs:
  - name: j
    workload: exec
    prepare: echo p >>$tmp/prepared
    cleanup: echo c >>$tmp/cleaned
    params: {command: "true"}
YAML
rm -f "$tmp/prepared" "$tmp/cleaned"
printf 'sample 0 5000000000\nsample 0 5000000000\n' | "$kscen" agent --stdio "$tmp/prep.yaml" >"$tmp/out" 2>"$tmp/err"
c1=$(cat "$tmp/cleaned" 2>/dev/null | wc -l)
printf 'sample 0 5000000000\nquit\n' | "$kscen" agent --stdio "$tmp/prep.yaml" >"$tmp/out" 2>"$tmp/err"
if [ "$(wc -l <"$tmp/prepared")" = 3 ] && [ "$c1" = 1 ] && [ "$(wc -l <"$tmp/cleaned")" = 2 ] &&
	[ "$(tail -1 "$tmp/out")" = bye ]; then pass agent_runs_cleanup_at_quit; else
	fail agent_runs_cleanup_at_quit "prepared $(wc -l <"$tmp/prepared"), cleaned $c1 then $(cat "$tmp/cleaned" | wc -l): $(cat "$tmp/err")"; fi
# the agent expands the plan as the host does: kscen ab passes --max-jobs
run "$kscen" agent --stdio --max-jobs 1 "$vfx/tiny.yaml" </dev/null
[ $rc = 3 ] && grep -q '^error the scenario does not load' "$tmp/out" &&
	grep -q 'more than 1 jobs' "$tmp/err" && pass agent_takes_max_jobs ||
	fail agent_takes_max_jobs "rc=$rc $(cat "$tmp/out" "$tmp/err")"
# kscen ab's own paths without qemu: KSCEN_AB_LOCAL_AGENTS (lib/hooks.c)
# makes each kernel's guest an agent on this machine. The run is made,
# stored and exits as kscen run's: the hook recorded, 143 on SIGTERM with
# the samples so far saved, 4 when the save fails.
export KSCEN_AB_LOCAL_AGENTS=1
run "$kscen" ab --kernel a --kernel b -q -o "$tmp/abres" "$vfx/tiny.yaml"
abrun=$(ls "$tmp"/abres/*/*.yaml 2>/dev/null)
if [ $rc = 0 ] && [ -n "$abrun" ] && grep -q '^test_hooks: KSCEN_AB_LOCAL_AGENTS=1' "$abrun" &&
   grep -q '^  baseline: .*/kernel=A' "$abrun" && grep -q '^# 4 ok, 0 skipped, 0 failed' "$tmp/out"; then
	pass ab_local_agents_run_saved
else
	fail ab_local_agents_run_saved "rc=$rc $(cat "$tmp/err") $(head -c 600 "$abrun")"
fi
cat >"$tmp/abslow.yaml" <<YAML
scenario: ab-slow
repeat: 20
warmup: 0
jobs:
  - name: s
    workload: exec
    prepare: echo p >>$tmp/abprep
    params: {command: "sleep 0.1"}
YAML
rm -rf "$tmp/abres" "$tmp/abprep"
"$kscen" ab --kernel a --kernel b -q -o "$tmp/abres" "$tmp/abslow.yaml" >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 200); do [ "$(cat "$tmp/abprep" 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.05; done
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 143 ] && grep -q '^partial: true' "$tmp"/abres/ab-slow/*.yaml 2>/dev/null &&
	pass ab_sigterm_exits_143_saves || fail ab_sigterm_exits_143_saves "rc=$rc $(cat "$tmp/err")"
if [ "$(id -u)" = 0 ] && mkdir -p "$tmp/abfull" && mount -t tmpfs -o size=64k tmpfs "$tmp/abfull" 2>/dev/null; then
	mkdir -p "$tmp/abfull/e2e-vm-tiny"
	dd if=/dev/zero of="$tmp/abfull/fill" bs=4k count=16 2>/dev/null
	run "$kscen" ab --kernel a --kernel b -q -o "$tmp/abfull" "$vfx/tiny.yaml"
	[ $rc = 4 ] && grep -q 'No space left on device (errno 28)' "$tmp/err" &&
		grep -q '^# 4 ok' "$tmp/out" && pass ab_save_fails_exit_4 ||
		fail ab_save_fails_exit_4 "rc=$rc $(cat "$tmp/err")"
	umount "$tmp/abfull"
else
	skip ab_save_fails_exit_4 "needs root to mount a small tmpfs"
fi
unset KSCEN_AB_LOCAL_AGENTS

if [ -n "$vm_why" ]; then
	for t in vm_missing_module vm_boot_run_results_back vm_kvm_failure_falls_back_to_tcg; do
		skip $t "$vm_why"; done
	[ -n "$vm_all" ] && for t in ab_two_kernels vm_kernel_panic_at_boot vm_boot_hang_times_out \
		vm_wrong_modules_fail_in_guest ab_guest_dies_mid_run ab_guest_hangs_mid_run; do
		skip $t "$vm_why"; done
else
	mkdir -p "$tmp/nomods"
	run "$kscen" vm --kernel "$ka" --modules "$tmp/nomods" -- run "$vfx/tiny.yaml"
	[ $rc = 2 ] && grep -q 'module virtio_pci is needed but is neither in' "$tmp/err" &&
		pass vm_missing_module || fail vm_missing_module "rc=$rc $(cat "$tmp/err")"

	# one boot: run a scenario in the guest, the result file lands here;
	# the binary, the scenario, the working directory and the results all
	# under the host's /tmp ($tmp), which the guest shows read-only
	cp "$kscen" "$tmp/kscen-copy" && cp "$vfx/tiny.yaml" "$tmp/tiny.yaml"
	(cd "$tmp" && ./kscen-copy vm --kernel "$ka" --cpus 1 -- run -r 2 -o vmres tiny.yaml) \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	f=$(cd "$tmp" && ls vmres/vm-tiny/*.yaml 2>/dev/null | head -1)
	if [ $rc = 0 ] && [ -n "$f" ] && grep -q "^  kernel: '$kver_a'" "$tmp/$f" &&
		grep -q '^  hostname: .*-vm-\(tcg\|kvm\)$' "$tmp/$f" &&
		grep -q "^results: $f" "$tmp/out" && grep -q ' 12.50 usecs/op' "$tmp/out" &&
		grep -q "kernel $kver_a booted in [0-9.]* s (guest uptime [0-9.]* s) under \(TCG\|KVM\)" "$tmp/err" &&
		no_stray vm_boot_run_results_back; then pass vm_boot_run_results_back; else
		fail vm_boot_run_results_back "rc=$rc $(tail -c 1500 "$tmp/out" "$tmp/err")"; fi

	# --accel auto where the KVM probe passes and QEMU then aborts under
	# KVM (a host whose KVM runs the probe but not -cpu host): TCG, said
	# why. This host may have no /dev/kvm: a test hook passes the probe,
	# and a stand-in QEMU aborts as the real one did under -accel kvm.
	real_qemu=$(command -v qemu-system-x86_64)
	cat >"$tmp/qemu-kvm-fails" <<SH
#!/bin/sh
case "\$*" in
*accel=kvm*)
	echo "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69"
	echo "qemu-system-x86_64: ../target/i386/kvm/kvm.c:3001: kvm_buf_set_msrs: Assertion \\\`ret == cpu->kvm_msr_buf->nmsrs' failed."
	kill -ABRT \$\$ ;;
esac
exec "$real_qemu" "\$@"
SH
	chmod +x "$tmp/qemu-kvm-fails"
	KSCEN_TEST_KVM_USABLE=1 KSCEN_QEMU=$tmp/qemu-kvm-fails \
		run "$kscen" vm --kernel "$ka" --cpus 1 -- list syscall.basic
	[ $rc = 0 ] && grep -q '^syscall.basic' "$tmp/out" &&
		grep -q "QEMU under KVM stopped before the guest booted (.*kvm_buf_set_msrs: Assertion .*); falling back to TCG" "$tmp/err" &&
		grep -q "booted in .* under TCG (QEMU under KVM failed: .*kvm_buf_set_msrs" "$tmp/err" &&
		no_stray vm_kvm_failure_falls_back_to_tcg &&
		pass vm_kvm_failure_falls_back_to_tcg ||
		fail vm_kvm_failure_falls_back_to_tcg "rc=$rc $(tail -c 1500 "$tmp/out" "$tmp/err")"
fi

if [ -z "$vm_why" ] && [ -n "$vm_all" ]; then
	run "$kscen" ab --kernel "$ka" --kernel "$kb" --cpus 1 -r 3 -o "$tmp/abres" "$vfx/tiny.yaml"
	f=$(ls "$tmp"/abres/vm-tiny/*.yaml 2>/dev/null | head -1)
	if [ $rc = 0 ] && [ -n "$f" ] && grep -q "kernel: A=$kver_a B=$kver_b" "$f" &&
		grep -q '^# Running vm-tiny/echo/kernel=A,' "$tmp/out" &&
		grep -q '^# Running vm-tiny/echo/kernel=B,' "$tmp/out" &&
		grep -q '^# 4 ok, 0 skipped, 0 failed' "$tmp/out" &&
		[ "$(grep -c "^  baseline: .*kernel=A" "$f")" = 2 ] &&
		grep -q 'per-sample overhead' "$tmp/err" && no_stray ab_two_kernels; then
		pass ab_two_kernels; else
		fail ab_two_kernels "rc=$rc $(tail -c 2000 "$tmp/out" "$tmp/err")"; fi

	run "$kscen" vm --kernel "$ka" --cpus 1 --append rdinit=/nonexistent -- list
	[ $rc = 3 ] && grep -q 'stopped before its init booted' "$tmp/err" &&
		grep -q '| .*Kernel panic' "$tmp/err" && no_stray vm_kernel_panic_at_boot &&
		pass vm_kernel_panic_at_boot || fail vm_kernel_panic_at_boot "rc=$rc $(cat "$tmp/err")"

	run "$kscen" vm --kernel "$ka" --cpus 1 --boot-timeout 3 -- list
	[ $rc = 3 ] && grep -q 'did not boot within 3 s' "$tmp/err" && no_stray vm_boot_hang_times_out &&
		pass vm_boot_hang_times_out || fail vm_boot_hang_times_out "rc=$rc $(cat "$tmp/err")"

	# B's modules for kernel A: found, but the kernel refuses them
	run "$kscen" vm --kernel "$ka" --modules "$cache/linux-image-$kver_b" --cpus 1 -- list
	[ $rc = 3 ] && grep -q '| kscen-init: error: cannot load module' "$tmp/err" &&
		grep -qi 'invalid module format' "$tmp/err" && no_stray vm_wrong_modules_fail_in_guest &&
		pass vm_wrong_modules_fail_in_guest ||
		fail vm_wrong_modules_fail_in_guest "rc=$rc $(cat "$tmp/err")"

	# B panics in its second round: its jobs fail, A's samples are all kept
	run "$kscen" ab --kernel "$ka" --kernel "$kb" --cpus 1 -o "$tmp/abres" "$vfx/guest-dies.yaml"
	f=$(ls "$tmp"/abres/vm-guest-dies/*.yaml 2>/dev/null | head -1)
	if [ $rc = 3 ] && [ -n "$f" ] && grep -q '^partial: true' "$f" &&
		grep -q '^# 2 ok, 0 skipped, 2 failed' "$tmp/out" &&
		grep -q 'kernel B: during a sample of crash/kernel=B' "$tmp/err" &&
		grep -q 'kernel B (6.1.0-50-amd64): the guest died' "$tmp/err" &&
		grep -q 'kernel B: .*Kernel panic - not syncing: sysrq triggered crash' "$tmp/err" &&
		"$kscen" report --format json "$f" >"$tmp/json" &&
		/usr/bin/python3 - "$tmp/json" <<'PY' && no_stray ab_guest_dies_mid_run; then pass ab_guest_dies_mid_run; else
import json, sys
run = json.load(open(sys.argv[1]))
jobs = {j["id"]: j for j in run["jobs"]}
for id_, j in jobs.items():
    n = len(j["metrics"][0]["samples"])
    if "kernel=A" in id_:
        assert j["status"] == "ok" and n == 3, (id_, j["status"], n)
    else:
        assert j["status"] == "failed" and "sysrq triggered crash" in j["reason"], (id_, j)
PY
		fail ab_guest_dies_mid_run "rc=$rc $(tail -c 2500 "$tmp/out" "$tmp/err")"; fi

	# B's agent stops answering: after the sample's timeout + --hang-timeout
	run "$kscen" ab --kernel "$ka" --kernel "$kb" --cpus 1 --hang-timeout 5 --no-save \
		"$vfx/guest-hangs.yaml"
	[ $rc = 3 ] && grep -q '^# 2 ok, 0 skipped, 2 failed' "$tmp/out" &&
		grep -q 'kernel B (6.1.0-50-amd64): no answer in time: the guest hangs' "$tmp/err" &&
		[ "$(grep -c 'FAILED: kernel B: no answer in time' "$tmp/out")" = 2 ] &&
		no_stray ab_guest_hangs_mid_run && pass ab_guest_hangs_mid_run ||
		fail ab_guest_hangs_mid_run "rc=$rc $(tail -c 1500 "$tmp/out" "$tmp/err")"
fi

if [ -n "$vm_standalone" ]; then
	echo "vm: $passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
fi
