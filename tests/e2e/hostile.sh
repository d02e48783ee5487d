#!/bin/bash
# hostile.sh [KSCEN] - end-to-end tests: what a result file, a journal, a
# module or a regex cannot make kscen do (docs/reliability.md, section 10):
# run a command, touch a path kscen did not create, crash, hang or lose
# what was taken. Each test failed before its fix.
. "$(dirname "$0")/lib.sh"

h=$tmp/hostile
mkdir -p "$h"

# yaml_edit IN OUT PYTHON: OUT is IN loaded, changed by PYTHON (on `r`, with
# $P as P), dumped
yaml_edit() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import os, sys, yaml
P = os.environ.get("P", "")
r = yaml.safe_load(open(sys.argv[1]))
exec(sys.argv[3])
yaml.safe_dump(r, open(sys.argv[2], "w"), sort_keys=False, allow_unicode=True)
PY
}

# ---- 1. plot: nothing a result, a scenario or -o holds is gnuplot script ----
# Each way in carries 'system("touch F")' on a line of its own: the plot
# is drawn, the label shown on one line, and F never made.
if ! why=$(need_tool gnuplot gnuplot-nox); then
	for t in plot_unit_is_not_script plot_job_name_is_not_script \
		plot_label_is_not_script plot_scenario_unit_is_not_script \
		plot_output_path_is_not_script; do skip $t "$why"; done
else
	pwn() { printf "x'\nsystem(\"touch %s\")\n#'" "$h/$1"; }
	svg_has() {	# svg_has FILE TEXT: a <text> of FILE holds TEXT, on one line
		/usr/bin/python3 - "$1" "$2" <<'PY'
import sys
import xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
t = ["".join(x.itertext()) for x in E.parse(sys.argv[1]).iter(ns + "text")]
assert any(sys.argv[2] in s for s in t), t
PY
	}
	base=$fx/results/tiny.yaml
	P=$(pwn unit) yaml_edit $base "$h/unit.yaml" "r['jobs'][0]['metrics'][0]['unit'] = P"
	run "$kscen" plot "$h/unit.yaml" -o "$h/unit.svg"
	[ $rc = 0 ] && [ ! -e "$h/unit" ] && svg_has "$h/unit.svg" "x' system(\"touch $h/" &&	# a unit is shown cut to its cell
		pass plot_unit_is_not_script ||
		fail plot_unit_is_not_script "rc=$rc $(ls "$h/unit" 2>&1) $(cat "$tmp/err")"

	P=$(pwn name) yaml_edit $base "$h/name.yaml" "
for j in r['jobs']:
    j['name'] = P + j['name']"
	run "$kscen" plot "$h/name.yaml" -o "$h/name.svg"
	[ $rc = 0 ] && [ ! -e "$h/name" ] && svg_has "$h/name.svg" "system(\"touch $h/name\")" &&
		pass plot_job_name_is_not_script ||
		fail plot_job_name_is_not_script "rc=$rc $(ls "$h/name" 2>&1) $(cat "$tmp/err")"

	P=$(pwn label) yaml_edit $base "$h/label.yaml" "r['label'] = P"
	run "$kscen" plot "$h/label.yaml" $base -o "$h/label.svg"
	[ $rc = 0 ] && [ ! -e "$h/label" ] && svg_has "$h/label.svg" "system(\"touch $h/label\")" &&
		pass plot_label_is_not_script ||
		fail plot_label_is_not_script "rc=$rc $(ls "$h/label" 2>&1) $(cat "$tmp/err")"

	# an exec metrics: unit, from the scenario to the result to the plot
	cat >"$h/unit-scn.yaml" <<YAML
scenario: hostile-unit
repeat: 2
warmup: 0
jobs:
  - name: j
    workload: exec
    params: {command: "echo v 5"}
    metrics:
      - {name: v, regex: "v ([0-9]+)", unit: "x'\nsystem(\"touch $h/scn\")\n#'"}
YAML
	run "$kscen" run -q -o "$h/res" --compare none "$h/unit-scn.yaml"
	r=$(ls "$h"/res/hostile-unit/*.yaml 2>/dev/null | head -1)
	if [ $rc = 0 ] && [ -n "$r" ]; then
		run "$kscen" plot "$r" -o "$h/scn.svg"
		[ $rc = 0 ] && [ ! -e "$h/scn" ] && svg_has "$h/scn.svg" "system(\"touch $h/" &&
			pass plot_scenario_unit_is_not_script ||
			fail plot_scenario_unit_is_not_script "rc=$rc $(ls "$h/scn" 2>&1) $(cat "$tmp/err")"
	else
		fail plot_scenario_unit_is_not_script "run: rc=$rc $(cat "$tmp/err")"
	fi

	# no '/' in a file name: the command makes "out" where gnuplot runs
	out="o$(printf "x'\nsystem(\"touch out\")\n#'").svg"
	rc=$(cd "$h" && "$kscen" plot "$OLDPWD/$base" -o "$out" 2>"$tmp/err"; echo $?)
	[ "$rc" = 0 ] && [ ! -e "$h/out" ] && [ -s "$h/$out" ] && svg_has "$h/$out" sleep &&
		pass plot_output_path_is_not_script ||
		fail plot_output_path_is_not_script "rc=$rc $(ls "$h/out" 2>&1) $(cat "$tmp/err")"
fi

# wait_for FILE [TENTHS]: until FILE exists, at most TENTHS/10 s (default 10 s)
wait_for() {
	for _ in $(seq "${2:-100}"); do [ -e "$1" ] && return 0; sleep 0.1; done
	return 1
}
# gone PID: until PID has exited, at most 5 s
gone() {
	for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
	return 1
}

# ---- 2. merge OUT: never replaces a file unasked, a device, or an input ------
for k in 1 2; do
	"$kscen" run -q -r 1 --compare none --shard $k/2 -o "$h/sh" $fx/e2e/shard.yaml >/dev/null 2>&1
done
s1=$(grep -l "^shard: '1/2'" "$h"/sh/e2e-shard/*.yaml)
s2=$(grep -l "^shard: '2/2'" "$h"/sh/e2e-shard/*.yaml)
sum() { sha256sum "$@" 2>/dev/null | cut -d' ' -f1; }
echo "mine" >"$h/existing.yaml"
run "$kscen" merge -q "$h/existing.yaml" "$s1" "$s2"
[ $rc = 2 ] && [ "$(cat "$h/existing.yaml")" = mine ] &&
	grep -q "existing.yaml exists; --force replaces it" "$tmp/err" &&
	pass merge_refuses_existing_out ||
	fail merge_refuses_existing_out "rc=$rc $(cat "$tmp/err")"
run "$kscen" merge -q --force "$h/existing.yaml" "$s1" "$s2"
[ $rc = 0 ] && grep -q '^partial: false' "$h/existing.yaml" && ! ls "$h"/existing.yaml.tmp-* >/dev/null 2>&1 &&
	pass merge_force_replaces_existing_out ||
	fail merge_force_replaces_existing_out "rc=$rc $(cat "$tmp/err")"
before=$(sum "$s1")
run "$kscen" merge -q --force "$s1" "$s1" "$s2"
[ $rc = 2 ] && [ "$(sum "$s1")" = "$before" ] && grep -q "is one of the runs to merge" "$tmp/err" &&
	pass merge_never_replaces_an_input ||
	fail merge_never_replaces_an_input "rc=$rc $(cat "$tmp/err")"
# a directory of shards holding OUT: the same file, reached another way
run "$kscen" merge -q --force "$h/sh/e2e-shard/../e2e-shard/$(basename "$s2")" "$h/sh"
[ $rc = 2 ] && [ "$(grep -c "^shard: '2/2'" "$s2")" = 1 ] && grep -q "is one of the runs to merge" "$tmp/err" &&
	pass merge_never_replaces_an_input_in_a_dir ||
	fail merge_never_replaces_an_input_in_a_dir "rc=$rc $(cat "$tmp/err")"
mkfifo "$h/fifo.yaml"
run timeout 10 "$kscen" merge -q --force "$h/fifo.yaml" "$s1" "$s2"
[ $rc = 2 ] && [ -p "$h/fifo.yaml" ] && grep -q "fifo.yaml: not a regular file" "$tmp/err" &&
	pass merge_never_replaces_a_fifo ||
	fail merge_never_replaces_a_fifo "rc=$rc $(cat "$tmp/err")"
# /dev/null's twin, made here: as root it was replaced by a regular file
if why=$(need_root) && mknod "$h/null" c 1 3 2>/dev/null; then
	run "$kscen" merge -q --force "$h/null" "$s1" "$s2"
	[ $rc = 2 ] && [ -c "$h/null" ] && grep -q "null: not a regular file" "$tmp/err" &&
		pass merge_never_replaces_a_device ||
		fail merge_never_replaces_a_device "rc=$rc $(ls -l "$h/null") $(cat "$tmp/err")"
else
	skip merge_never_replaces_a_device "${why:-mknod failed}"
fi
# SIGTERM while OUT's temp file is written (a preloaded fsync() sends it):
# the temp file is removed, OUT not made, exit 143
if need_tool cc gcc >/dev/null; then
	cat >"$h/termfsync.c" <<'C'
#define _GNU_SOURCE
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
int fsync(int fd)
{
	kill(getpid(), SIGTERM);
	return syscall(SYS_fsync, fd);
}
C
	cc -shared -fPIC -o "$h/termfsync.so" "$h/termfsync.c"
	LD_PRELOAD="$h/termfsync.so" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		run "$kscen" merge -q "$h/termed.yaml" "$s1" "$s2"
	[ $rc = 143 ] && [ ! -e "$h/termed.yaml" ] && ! ls "$h"/termed.yaml.tmp-* >/dev/null 2>&1 &&
		pass merge_sigterm_removes_temp ||
		fail merge_sigterm_removes_temp "rc=$rc $(ls "$h") $(cat "$tmp/err")"
else
	skip merge_sigterm_removes_temp "$(need_tool cc gcc)"
fi

# ---- 3. journals: paths checked, damage named and cut, one resume at a time --
cat >"$h/slow.yaml" <<'YAML'
scenario: hostile-slow
repeat: 4
warmup: 0
jobs:
  - name: s
    workload: exec
    params:
      command: ["sleep 0.05", "sleep 0.06"]
YAML
# journal DIR [SCENARIO]: a run of SCENARIO (default slow.yaml) under DIR
# killed after 3 samples; prints its journal
journal() {
	local j
	"$kscen" run -q -o "$1" --compare none "${2:-$h/slow.yaml}" >/dev/null 2>&1 &
	local pid=$!
	for _ in $(seq 200); do
		j=$(ls "$1"/*/*.journal 2>/dev/null | head -1)
		[ -n "$j" ] && [ "$(grep -c '^s ' "$j")" -ge 3 ] && break
		sleep 0.05
	done
	{ kill -9 $pid; wait $pid; } 2>/dev/null
	echo "$j"
}
# samples_ok RESULT N: every job of RESULT has N finite samples, partial: false
samples_ok() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import math, sys, yaml
r = yaml.safe_load(open(sys.argv[1]))
assert r["partial"] is False, r["partial"]
for j in r["jobs"]:
    s = j["metrics"][0]["samples"]
    assert len(s) == int(sys.argv[2]) and all(math.isfinite(x) for x in s), (j["id"], s)
PY
}
# A "p PATH" record names the partial result to remove once the run is
# whole: only a result of this run, beside its journal, is ever removed.
j=$(journal "$h/jp")
echo secret >"$h/victim"
echo "p $h/victim" >>"$j"
n=$(wc -l <"$j")
run "$kscen" run -q --resume "$j"
[ $rc = 2 ] && [ -e "$h/victim" ] && grep -q "$j:$n:1: p: $h/victim is not a result kscen saved beside this journal" "$tmp/err" &&
	pass journal_p_record_cannot_delete_a_file ||
	fail journal_p_record_cannot_delete_a_file "rc=$rc $(ls "$h/victim" 2>&1) $(cat "$tmp/err")"
# another run's result beside the journal: kept too
j=$(journal "$h/jp2")
"$kscen" run -q -r 1 -o "$h/jp2" --compare none "$h/slow.yaml" >/dev/null 2>&1
other=$(ls "$h"/jp2/hostile-slow/*.yaml | head -1)
echo "p $other" >>"$j"
n=$(wc -l <"$j")
run "$kscen" run -q --resume "$j"
[ $rc = 2 ] && [ -e "$other" ] && grep -q "$j:$n:1: p: $other is not a result of this run" "$tmp/err" &&
	pass journal_p_record_cannot_delete_another_run ||
	fail journal_p_record_cannot_delete_another_run "rc=$rc $(ls "$other" 2>&1) $(cat "$tmp/err")"
# a duplicated record: named by its line, cut there, its samples taken again
j=$(journal "$h/jd")
n=$(grep -n '^s ' "$j" | head -1 | cut -d: -f1)
sed -i "${n}p" "$j"
run "$kscen" run -q --resume "$j"
r=$(ls "$h"/jd/hostile-slow/*.yaml 2>/dev/null | head -1)
[ $rc = 0 ] && grep -q "$j:$((n + 1)):1: .*the journal is cut here" "$tmp/err" && [ ! -e "$j" ] &&
	samples_ok "$r" 4 && pass journal_damaged_record_named_and_cut ||
	fail journal_damaged_record_named_and_cut "rc=$rc $(cat "$tmp/err")"
# nan, inf and a short record: refused as damage, never stored as a sample
for bad in nan inf short; do
	j=$(journal "$h/jv-$bad")
	n=$(grep -n '^s ' "$j" | sed -n 2p | cut -d: -f1)
	case $bad in
	short) sed -i "${n}s/^\(s [0-9]* [0-9]* [-0-9]* [0-9]* [^ ]*\) .*/\1/" "$j" ;;
	*) sed -i "${n}s/^\(s [0-9]* [0-9]* [-0-9]* [0-9]*\) [^ ]*/\1 $bad/" "$j" ;;
	esac
	run "$kscen" run -q --resume "$j"
	r=$(ls "$h"/jv-$bad/hostile-slow/*.yaml 2>/dev/null | head -1)
	[ $rc = 0 ] && grep -q "$j:$n:1: " "$tmp/err" && samples_ok "$r" 4 &&
		pass journal_${bad}_record_refused ||
		fail journal_${bad}_record_refused "rc=$rc $(sed -n ${n}p "$j" 2>/dev/null) $(cat "$tmp/err")"
done
# two resumes of one journal at once: the second is refused, one result
sed 's/^repeat: 4/repeat: 30/' "$h/slow.yaml" >"$h/slower.yaml"
j=$(journal "$h/jl" "$h/slower.yaml")
n=$(grep -c '^s ' "$j")
"$kscen" run -q --resume "$j" >/dev/null 2>"$h/first.err" &
pid=$!
for _ in $(seq 200); do [ "$(grep -c '^s ' "$j" 2>/dev/null)" -gt "$n" ] && break; sleep 0.05; done
run "$kscen" run -q --resume "$j"
rc2=$rc
wait $pid
rc=$?
[ $rc2 = 2 ] && grep -q "$j: another kscen is running this journal" "$tmp/err" && [ $rc = 0 ] &&
	[ "$(ls "$h"/jl/hostile-slow/*.yaml | wc -l)" = 1 ] &&
	pass journal_locked_against_a_second_resume ||
	fail journal_locked_against_a_second_resume "rc=$rc/$rc2 $(cat "$tmp/err" "$h/first.err")"
# while a run goes, the runner alone holds its journal open: nothing it
# starts (the cgroup guard once did) keeps the lock past a SIGKILL of it
"$kscen" run -q -o "$h/jk" --compare none "$h/slower.yaml" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do
	j=$(ls "$h"/jk/*/*.journal 2>/dev/null | head -1)
	[ -n "$j" ] && [ "$(grep -c '^s ' "$j")" -ge 1 ] && break
	sleep 0.05
done
holders=$(for p in /proc/[0-9]*; do
	ls -l "$p/fd" 2>/dev/null | grep -qF -- "$j" && echo "${p#/proc/}"; done)
{ kill -9 $pid; wait $pid; } 2>/dev/null
[ -n "$j" ] && [ "$holders" = "$pid" ] && pass journal_held_by_the_runner_alone ||
	fail journal_held_by_the_runner_alone "journal '$j' held by: $holders (runner $pid)"
# the scenario's path, relative where the run started: resumed from elsewhere
mkdir -p "$h/jr"
cp "$h/slow.yaml" "$h/jr/rel.yaml"
j=$(cd "$h/jr" && journal res rel.yaml)
run "$kscen" run -q --resume "$h/jr/$j"
[ $rc = 0 ] && samples_ok "$(ls "$h"/jr/res/hostile-slow/*.yaml)" 4 &&
	pass journal_scenario_path_resolved ||
	fail journal_scenario_path_resolved "rc=$rc $(cat "$tmp/err")"

# ---- 4. modules: owner and mode up to /, no symlink trick, constructors in a
# child, the build that ran is the build hashed, what a module hands over
# bounded ----------------------------------------------------------------------
cc=${CC:-cc}
md=$h/mods	# a directory only root (or we) may write, as modules need
mkdir -p "$md" "$h/inc/kscen"
chmod 755 "$tmp" "$h" "$md"
cp runner/workloads/workload.h "$h/inc/kscen/workload.h"
# hmod NAME [CFLAGS]: $md/NAME.so from the C of stdin, against <kscen/workload.h>
hmod() {
	local n=$1
	shift
	cat >"$h/$n.c"
	"$cc" -std=gnu11 -O1 -fPIC -shared -I"$h/inc" "$@" -o "$md/$n.so" "$h/$n.c"
}
# a good module: one workload, its sample sleeps 20 ms (BUILD: which build)
good_c='#include <kscen/workload.h>
#include <unistd.h>
#ifndef BUILD
#define BUILD 1
#endif
static const char build[] = "build " "BUILD";
static const struct kscen_metric_desc m[] = { { "v", "units", KSCEN_LOWER } };
static int s(struct kscen_ctx *c, double *v) { (void)c; usleep(20000); v[0] = BUILD + sizeof(build); return 0; }
static const struct kscen_workload w = {
	.name = "hostile.good", .summary = "s", .metrics = m, .nr_metrics = 1, .sample = s,
};
KSCEN_MODULE(&w);'
echo "$good_c" | hmod good
mscn() {	# mscn FILE MODULE [REPEAT] [PREPARE]: a scenario of one job of MODULE's workload
	printf 'scenario: hostile-mod\nrepeat: %s\nwarmup: 0\nmodules: [%s]\njobs:\n  - name: j\n    workload: %s\n%s' \
		"${3:-2}" "$2" "${WL:-hostile.good}" "${4:+    prepare: $4
}" >"$1"
}
mscn "$h/good.yaml" "$md/good.so"
run "$kscen" validate "$h/good.yaml"
if [ $rc != 0 ]; then
	fail module_tests "a good module is refused: $(cat "$tmp/err")"
else
	# owned by another user, or in a directory another user owns
	if why=$(need_root); then
		cp "$md/good.so" "$md/nobody.so" && chown nobody "$md/nobody.so"
		mscn "$h/nobody.yaml" "$md/nobody.so"
		run "$kscen" validate "$h/nobody.yaml"
		[ $rc = 2 ] && grep -q "nobody.so: refused: the file is owned by uid $(id -u nobody), not root or uid 0" "$tmp/err" &&
			pass module_owned_by_another_user_refused ||
			fail module_owned_by_another_user_refused "rc=$rc $(cat "$tmp/err")"
		mkdir -p "$h/nobodys"
		cp "$md/good.so" "$h/nobodys/good.so"
		chown nobody "$h/nobodys"
		mscn "$h/nobodydir.yaml" "$h/nobodys/good.so"
		run "$kscen" validate "$h/nobodydir.yaml"
		[ $rc = 2 ] && grep -q "refused: the directory $h/nobodys is owned by uid" "$tmp/err" &&
			pass module_in_another_users_dir_refused ||
			fail module_in_another_users_dir_refused "rc=$rc $(cat "$tmp/err")"
		# group-writable, the group not root's
		cp "$md/good.so" "$md/group.so" && chgrp nogroup "$md/group.so" && chmod 664 "$md/group.so"
		mscn "$h/group.yaml" "$md/group.so"
		run "$kscen" validate "$h/group.yaml"
		[ $rc = 2 ] && grep -q "group.so: refused: the file is group-writable" "$tmp/err" &&
			pass module_group_writable_refused ||
			fail module_group_writable_refused "rc=$rc $(cat "$tmp/err")"
	else
		for t in module_owned_by_another_user_refused module_in_another_users_dir_refused \
			module_group_writable_refused; do skip $t "$why"; done
	fi
	# a symlink in a directory anyone may write: it can be pointed elsewhere
	mkdir -p "$h/open"
	chmod 777 "$h/open"
	ln -sf "$md/good.so" "$h/open/link.so"
	mscn "$h/link.yaml" "$h/open/link.so"
	run "$kscen" validate "$h/link.yaml"
	[ $rc = 2 ] && grep -q "link.so: refused: the directory $h/open is world-writable" "$tmp/err" &&
		pass module_symlink_in_open_dir_refused ||
		fail module_symlink_in_open_dir_refused "rc=$rc $(cat "$tmp/err")"

	# constructors: one that exits 0, one that hangs
	printf '%s\n%s\n' "$good_c" '__attribute__((constructor)) static void bye(void) { _exit(0); }' |
		sed 's/hostile.good/hostile.exits/' | hmod exits
	mscn "$h/exits.yaml" "$md/exits.so"
	for cmd in validate plan run; do
		run "$kscen" $cmd "$h/exits.yaml"
		[ $rc = 2 ] && grep -q "exits.so: loading it ended the process (exited with status 0) before kscen could check it" "$tmp/err" &&
			pass module_constructor_exit_is_an_error_$cmd ||
			fail module_constructor_exit_is_an_error_$cmd "rc=$rc $(cat "$tmp/out" "$tmp/err")"
	done
	printf '%s\n%s\n' "$good_c" '__attribute__((constructor)) static void hang(void) { for (;;) pause(); }' |
		sed 's/hostile.good/hostile.hangs/' | hmod hangs
	mscn "$h/hangs.yaml" "$md/hangs.so"
	run timeout 60 "$kscen" validate "$h/hangs.yaml"
	[ $rc = 2 ] && grep -q "hangs.so: loading it did not finish in 10 s" "$tmp/err" &&
		pass module_constructor_hang_is_an_error ||
		fail module_constructor_hang_is_an_error "rc=$rc $(cat "$tmp/err")"

	# swapped during the run (prepare: copies build 2 over it before the
	# job's first sample, after the run loaded build 1): refused, not two
	# builds under one sha256
	echo "$good_c" | hmod good2 -DBUILD=2
	cp "$md/good.so" "$md/swap.so"
	mscn "$h/swap.yaml" "$md/swap.so" 2 "cp $md/good2.so $md/swap.so"
	run "$kscen" run -q --no-save --compare none "$h/swap.yaml"
	[ $rc = 3 ] && grep -q "module $md/swap.so changed since the run loaded it" "$tmp/out" &&
		pass module_swapped_during_run_refused ||
		fail module_swapped_during_run_refused "rc=$rc $(cat "$tmp/out" "$tmp/err")"
	# rebuilt before --resume
	cp "$md/good.so" "$md/re.so"
	mscn "$h/re.yaml" "$md/re.so" 40
	mkdir -p "$h/jm"
	j=$(journal "$h/jm" "$h/re.yaml")
	cp "$md/good2.so" "$md/re.so"
	run "$kscen" run -q --resume "$j"
	[ $rc = 2 ] && grep -q "the module $md/re.so was rebuilt since the run started" "$tmp/err" &&
		[ -e "$j" ] && pass module_rebuilt_resume_refused ||
		fail module_rebuilt_resume_refused "rc=$rc $(cat "$tmp/err")"

	# bounds: job_metrics() of 50 metrics, or of NULL names; a 1-byte
	# kscen_module; an error message without its NUL
	# hookmod NAME HOOK C: the good module as hostile.NAME, its .HOOK the
	# function h that C defines, and $h/NAME.yaml a job of it
	hookmod() {
		printf '%s\n' "$good_c" | sed -e "s/hostile.good/hostile.$1/" \
			-e "s/\.sample = s,/.sample = s, .$2 = h,/" \
			-e "s|^static const struct kscen_workload w|$3\n&|" | hmod "$1"
		WL=hostile.$1 mscn "$h/$1.yaml" "$md/$1.so"
	}
	for t in 50 null_name; do
		hookmod jm job_metrics "static unsigned h(const void *p, struct kscen_metric_desc *m) { (void)p; $([ $t = 50 ] && echo 'return 50;' || echo 'm[0].name = 0; return 1;') }"
		run "$kscen" validate "$h/jm.yaml"
		[ $rc = 2 ] && grep -q "job j: workload hostile.jm: job_metrics()" "$tmp/err" &&
			pass module_job_metrics_${t}_refused ||
			fail module_job_metrics_${t}_refused "rc=$rc $(cat "$tmp/err")"
	done
	printf '#include <kscen/workload.h>\nconst char kscen_module = 1;\n' | hmod tiny
	mscn "$h/tiny.yaml" "$md/tiny.so"
	run "$kscen" validate "$h/tiny.yaml"
	[ $rc = 2 ] && grep -q "tiny.so: its 'kscen_module' symbol is 1 bytes, not a struct kscen_module" "$tmp/err" &&
		pass module_tiny_symbol_refused ||
		fail module_tiny_symbol_refused "rc=$rc $(cat "$tmp/err")"
	hookmod chk check "#include <string.h>\nstatic int h(const void *p, char *e, size_t n) { (void)p; memset(e, 65, n); return -22; }"
	run "$kscen" validate "$h/chk.yaml"
	a=$(grep -o 'AAAA*' "$tmp/err" | head -1)
	[ $rc = 2 ] && [ ${#a} = 255 ] && pass module_unterminated_error_bounded ||
		fail module_unterminated_error_bounded "rc=$rc ${#a} A's $(head -c 300 "$tmp/err")"
	# check() that exits: validate's child ends, validate says so
	hookmod chx check "static int h(const void *p, char *e, size_t n) { (void)p; (void)e; (void)n; _exit(0); }"
	run "$kscen" validate "$h/chx.yaml"
	[ $rc = 2 ] && [ ! -s "$tmp/out" ] &&
		grep -q "kscen validate: ended before it finished (exited with status 0)" "$tmp/err" &&
		pass module_check_exit_is_an_error_validate ||
		fail module_check_exit_is_an_error_validate "rc=$rc $(cat "$tmp/out" "$tmp/err")"
fi

# ---- 5. regexes: matching within the sample's timeout, ^C at once ----------
# (a*)x on 256 KiB of "a": more than 30 s of regexec(), past the timeout
cat >"$h/re.yaml" <<YAML
scenario: hostile-re
repeat: 1
warmup: 0
timeout: 2s
jobs:
  - name: j
    workload: exec
    params:
      command: "head -c 262144 /dev/zero | tr '\\\\0' a; touch $h/printed"
      metric_regex: "(a*)x"
YAML
t0=$(date +%s%N)
run timeout 120 "$kscen" run -q --no-save --compare none "$h/re.yaml"
ms=$((($(date +%s%N) - t0) / 1000000))
[ $rc = 3 ] && grep -q 'timed out' "$tmp/out" && [ $ms -lt 8000 ] &&
	pass regex_match_within_sample_timeout ||
	fail regex_match_within_sample_timeout "rc=$rc ${ms} ms $(cat "$tmp/out" "$tmp/err" | tail -5)"
sed 's/^timeout: 2s/timeout: 600s/' "$h/re.yaml" >"$h/re-long.yaml"
rm -f "$h/printed"
"$kscen" run -q --no-save --compare none "$h/re-long.yaml" >/dev/null 2>&1 &
pid=$!
if wait_for "$h/printed" 300; then
	t0=$(date +%s%N)
	kill -INT $pid
	gone $pid || { kill -9 $pid; echo "still matching 5 s after SIGINT" >"$tmp/err"; }
	wait $pid
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $rc = 130 ] && [ $ms -lt 2000 ] && pass regex_match_stops_on_sigint ||
		fail regex_match_stops_on_sigint "rc=$rc ${ms} ms $(cat "$tmp/err")"
else
	kill -9 $pid
	fail regex_match_stops_on_sigint "the command never ran"
fi
# a count past 255: refused at once, before regcomp() expands it (6 GB)
run timeout 20 "$kscen" validate $fx/bad/regex-count.yaml
[ $rc = 2 ] && grep -q 'the repetition count 30000 is above 255$' "$tmp/err" &&
	pass regex_large_count_refused || fail regex_large_count_refused "rc=$rc $(cat "$tmp/err")"
# the bound itself: 255 is allowed, 256 is not
for c in 255 256; do
	sed "s/30000/$c/" $fx/bad/regex-count.yaml >"$tmp/re$c.yaml"
	run timeout 20 "$kscen" validate "$tmp/re$c.yaml"
	eval rc$c=$rc
done
[ $rc255 = 0 ] && [ $rc256 = 2 ] &&
	grep -q 'the repetition count 256 is above 255$' "$tmp/err" &&
	pass regex_count_bound_is_255 ||
	fail regex_count_bound_is_255 "255: rc=$rc255, 256: rc=$rc256 $(cat "$tmp/err")"

# ---- 6. the small holes -------------------------------------------------------
# --compare label:NAME finds a labelled run however many are newer (it
# looked at the newest 100 only: git bisect run broke in a busy lab)
"$kscen" run -q -r 2 -o "$h/lab" --compare none --label old $fx/e2e/tiny.yaml >/dev/null 2>&1
sleep 1	# result files are named by the second they started
"$kscen" run -q -r 2 -o "$h/lab" --compare none $fx/e2e/tiny.yaml >/dev/null 2>&1
newer=$(ls "$h"/lab/e2e-tiny/*.yaml | grep -v '+old')
for i in $(seq 101 230); do cp "$newer" "$h/lab/e2e-tiny/20991231T235$((i / 100))$((i % 100 / 10))$((i % 10))Z-vm.yaml"; done
run "$kscen" run -q -r 2 --no-save -o "$h/lab" --compare label:old $fx/e2e/tiny.yaml
rc1=$rc
grep -q '^     vs old: ' "$tmp/out"; got=$?
run "$kscen" compare label:old label:old "$h/lab/e2e-tiny"
[ $rc1 = 0 ] && [ $got = 0 ] && [ $rc = 0 ] && pass label_found_past_newest_100_runs ||
	fail label_found_past_newest_100_runs "rc=$rc1/$rc $(cat "$tmp/err")"
# kscen vm with a kernel that is none: no ./results left behind (made for
# the guest to write into, in a working directory out of /tmp, which the
# guest could not see: beside the binary)
vmcwd=$(mktemp -d "$(dirname "$kscen")/.kscen-test-vm.XXXXXX")
cp $fx/e2e/tiny.yaml "$vmcwd/"
run sh -c "cd '$vmcwd' && exec '$kscen' vm --kernel /etc/passwd -- run tiny.yaml"
[ $rc = 2 ] && [ ! -e "$vmcwd/results" ] && grep -q '/etc/passwd is not a bzImage\|under /tmp or /run' "$tmp/err" &&
	pass vm_bad_kernel_leaves_no_results_dir ||
	fail vm_bad_kernel_leaves_no_results_dir "rc=$rc $(ls "$vmcwd") $(cat "$tmp/err")"
rm -rf "$vmcwd"
# report DIR whose newest entry is a FIFO named as a run: the newest run
mkdir -p "$h/fifodir"
cp "$(ls "$h"/lab/e2e-tiny/*+old.yaml)" "$h/fifodir/20260101T000000Z-vm.yaml"
mkfifo "$h/fifodir/20991231T235959Z-vm.yaml"
run timeout 10 "$kscen" report "$h/fifodir"
[ $rc = 0 ] && grep -q '^# label: old' "$tmp/out" && pass report_dir_skips_a_fifo ||
	fail report_dir_skips_a_fifo "rc=$rc $(cat "$tmp/err")"
# scenario: .hidden: validate and run refuse it alike, naming why
run "$kscen" validate $fx/bad/hidden-name.yaml
v=$(cat "$tmp/err")
run "$kscen" run -q -o "$h/hid" $fx/bad/hidden-name.yaml
[ $rc = 2 ] && [ -n "$v" ] && [ "$(cat "$tmp/err")" = "$v" ] && [ ! -e "$h/hid/.hidden" ] &&
	grep -q "'.hidden' starts with '.'" "$tmp/err" && pass scenario_name_one_rule_validate_run ||
	fail scenario_name_one_rule_validate_run "rc=$rc validate: $v run: $(cat "$tmp/err")"

# ---- plot under SIGTERM: gnuplot killed, its temporary files gone ----------
mkdir -p "$h/fakebin"
cat >"$h/fakebin/gnuplot" <<SH
#!/bin/sh
echo \$\$ >"$h/gp.pid"
echo "\$1" >"$h/gp.script"
sleep 30
echo late >"$h/gp.late"
SH
chmod +x "$h/fakebin/gnuplot"
PATH=$h/fakebin:$PATH "$kscen" plot $fx/results/tiny.yaml -o "$h/sig.svg" 2>"$tmp/err" &
pid=$!
if wait_for "$h/gp.script"; then
	kill -TERM $pid
	wait $pid
	rc=$?
	gp=$(cat "$h/gp.pid")
	[ $rc = 143 ] && gone "$gp" && [ ! -e "$(dirname "$(cat "$h/gp.script")")" ] &&
		[ ! -e "$h/sig.svg" ] && ! ls "$h"/sig.svg.tmp-* >/dev/null 2>&1 &&
		pass plot_sigterm_kills_gnuplot_removes_temp ||
		fail plot_sigterm_kills_gnuplot_removes_temp "rc=$rc gnuplot $(ps -o pid=,cmd= -p "$gp") $(ls -d "$(dirname "$(cat "$h/gp.script")")" 2>&1)"
else
	kill -9 $pid
	fail plot_sigterm_kills_gnuplot_removes_temp "the stand-in gnuplot never started: $(cat "$tmp/err")"
fi

finish hostile
