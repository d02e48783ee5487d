#!/bin/bash
# install.sh [KSCEN] - end-to-end tests: make install into a DESTDIR tree
# (binary, man pages, bash completion, example scenarios, the module
# header), what it installed working, make uninstall leaving nothing.
. "$(dirname "$0")/lib.sh"

root=$tmp/root
bdir=$(basename "$(dirname "$kscen")")	# build, or build-asan under make asan
if ! why=$(need_tool scdoc scdoc); then
	skip install_tree "$why"
else
	# -o: install the binary under test as it is; never relink it (under
	# make asan a relink here would drop the sanitizers' flags)
	make -s -o "$bdir/kscen" install BUILD="$bdir" DESTDIR="$root" PREFIX=/usr/local \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	ok=1
	for f in bin/kscen share/man/man1/kscen.1 share/man/man5/kscen-scenario.5 \
		 share/bash-completion/completions/kscen share/kscen/scenarios/breakpoints.yaml \
		 include/kscen/workload.h; do
		[ -s "$root/usr/local/$f" ] || { ok=0; echo "missing $f" >>"$tmp/err"; }
	done
	[ $rc = 0 ] && [ $ok = 1 ] && [ -x "$root/usr/local/bin/kscen" ] && pass install_tree ||
		fail install_tree "rc=$rc $(cat "$tmp/err")"

	# the installed binary validates the installed examples, from anywhere
	(cd / && "$root/usr/local/bin/kscen" validate "$root"/usr/local/share/kscen/scenarios/*.yaml) \
		>"$tmp/out" 2>"$tmp/err"
	[ $? = 0 ] && [ "$(grep -c ': ok, ' "$tmp/out")" = "$(ls "$root"/usr/local/share/kscen/scenarios/*.yaml | wc -l)" ] &&
		pass installed_binary_validates_examples ||
		fail installed_binary_validates_examples "$(cat "$tmp/err")"

	# the example module builds against the installed header alone, and loads
	cc -std=gnu11 -Wall -Werror -fPIC -shared -I"$root/usr/local/include" \
		-o "$tmp/example.so" examples/example.c 2>"$tmp/err" &&
		KSCEN_MODULE_PATH=$tmp/example.so "$root/usr/local/bin/kscen" list example.getpid \
			>"$tmp/out" 2>>"$tmp/err" && grep -q "^origin: $tmp/example.so" "$tmp/out" &&
		pass installed_header_builds_example || fail installed_header_builds_example \
			"$(head -c 300 "$tmp/err")"

	if ! why=$(need_tool man man-db); then
		skip man_pages_render "$why"
	else
		MANWIDTH=80 man -l "$root/usr/local/share/man/man1/kscen.1" >"$tmp/man1" 2>"$tmp/err"
		MANWIDTH=80 man -l "$root/usr/local/share/man/man5/kscen-scenario.5" >"$tmp/man5" 2>>"$tmp/err"
		grep -q '^EXIT STATUS' "$tmp/man1" && grep -q 'kscen run scenarios/breakpoints.yaml' "$tmp/man1" &&
			grep -q '^DESCRIPTION' "$tmp/man5" && grep -q 'baseline' "$tmp/man5" &&
			! grep -qi 'warning' "$tmp/err" && pass man_pages_render ||
			fail man_pages_render "$(head -c 300 "$tmp/err")"
		# kscen(1) has every command and every option of its --help (long or
		# short); exec and rerun take run's, ab the guest options of vm
		MANWIDTH=2000 man -l "$root/usr/local/share/man/man1/kscen.1" >"$tmp/man1w" 2>/dev/null
		for c in $("$kscen" --help | awk '/^commands:/ { f = 1; next } f && NF == 0 { exit } f { print $1 }'); do
			"$kscen" "$c" --help >"$tmp/help.$c"
		done
		if /usr/bin/python3 - "$tmp" <<'PY'
import glob, re, sys
d = sys.argv[1]
lines = open(d + "/man1w").read().split("\n")
sec, cur = {}, None
for l in lines:
    m = re.match(r"^       ([a-z]+) ", l)
    if m:
        cur = m.group(1)
    elif re.match(r"^[A-Z]", l):
        cur = None
    if cur:
        sec[cur] = sec.get(cur, "") + l + "\n"
missing = []
for h in sorted(glob.glob(d + "/help.*")):
    c = h.split(".")[-1]
    text = sec.get(c, "") + {"exec": sec.get("run", ""), "rerun": sec.get("run", ""),
                             "ab": sec.get("vm", "")}.get(c, "")
    if c not in sec:
        missing.append(c)
    for m in re.finditer(r"^  (?:-(\w), )?\s*--([a-z][a-z-]*)", open(h).read(), re.M):
        short, long_ = m.group(1), m.group(2)
        if long_ == "help":
            continue
        if "--" + long_ not in text and not (short and re.search(r"-%s\b" % short, text)):
            missing.append("%s --%s" % (c, long_))
assert not missing, missing
PY
		then pass man_page_has_every_command_and_option
		else fail man_page_has_every_command_and_option "see above"; fi
	fi

	# completion: the function the installed file registers, words as bash gives them
	comp=$root/usr/local/share/bash-completion/completions/kscen
	complete_words() {
		bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
			 _kscen; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
	}
	# complete_split BREAKS LINE WORD...: the words as bash splits LINE at
	# the word breaks BREAKS (COMP_WORDBREAKS), the cursor at LINE's end
	complete_split() {
		bash -c '. "$1"; COMP_WORDBREAKS=$2 COMP_LINE=$3 COMP_POINT=${#3}; shift 3
			 COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
			 _kscen; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
	}
	c1=$(complete_words "$kscen" ru)
	c2=$(complete_words "$kscen" run --unt)
	c3=$(complete_words "$kscen" list breakpoint.)
	c4=$(complete_words "$kscen" plan $fx/good/matrix.yaml --filter 'enable/')
	c5=$(complete_words "$kscen" report --format j)
	c6=$(complete_words "$kscen" validate $fx/good/matr)
	[ "$c1" = run ] && [ "$c2" = --until-ci ] &&
		[ "$(echo "$c3" | sort | tr '\n' ' ')" = "breakpoint.enable breakpoint.thread " ] &&
		[ "$(echo "$c4" | wc -l)" = 4 ] && echo "$c4" | grep -qx 'enable/loops=20000,passive=16,active=2' &&
		[ "$c5" = json ] && [ "$c6" = $fx/good/matrix.yaml ] &&
		pass bash_completion || fail bash_completion "[$c1] [$c2] [$c3] [$c4] [$c5] [$c6]"

	# whole job ids, though bash splits words at '=' (and at ',' where
	# COMP_WORDBREAKS has it): what follows the last break is offered
	wb=$' \t\n"\'><=;|&(:'
	m=$fx/good/matrix.yaml
	c1=$(complete_split "$wb" "$kscen plan $m --filter enable/loops=20000,passive=16,active=" \
		"$kscen" plan $m --filter enable/loops = 20000,passive = 16,active =)
	c2=$(complete_split "$wb," "$kscen plan $m --filter thread/threads=64,lo" \
		"$kscen" plan $m --filter thread/threads = 64 , lo)
	c3=$(complete_split "$wb" "$kscen plan $fx/e2e/tiny.yaml --filter sleep/command=sleep\ 0.0" \
		"$kscen" plan $fx/e2e/tiny.yaml --filter sleep/command = 'sleep\ 0.0')
	c4=$(complete_split "$wb" "$kscen report --format m" "$kscen" report --format m)
	[ "$(echo $c1)" = "0 2" ] && [ "$c2" = loops=56,breakpoints=4,parallelism=2 ] &&
		[ "$(echo $c3)" = 'sleep\ 0.01 sleep\ 0.02' ] && [ "$(echo $c4)" = "mail markdown" ] &&
		pass completion_whole_job_ids_and_mail || fail completion_whole_job_ids_and_mail "[$c1] [$c2] [$c3] [$c4]"

	# label: the labels of the stored runs; plot --flame: the profiled jobs
	mkdir -p "$tmp/lres/s" "$tmp/lres/s/20261201T000000Z-h.profiles"
	touch "$tmp/lres/s/20261201T000000Z-h+v6.8-rc1.yaml" "$tmp/lres/s/20261202T000000Z-h+v6.8-rc2.yaml" \
	      "$tmp/lres/s/20261130T000000Z-h+before.yaml" \
	      "$tmp/lres/s/20261203T000000Z-h.yaml" "$tmp/lres/s/20261201T000000Z-h.yaml" \
	      "$tmp/lres/s/20261201T000000Z-h.profiles/basic%2Floops=300000.folded" \
	      "$tmp/lres/s/20261201T000000Z-h.profiles/basic%2Floops=3%25.folded"
	c1=$(complete_split "$wb" "$kscen run -o $tmp/lres --compare label:" \
		"$kscen" run -o "$tmp/lres" --compare label :)
	c2=$(complete_split "$wb" "$kscen compare $tmp/lres/s label:v6.8-rc1 label:v6.8-rc" \
		"$kscen" compare "$tmp/lres/s" label : v6.8-rc1 label : v6.8-rc)
	c3=$(complete_split "$wb" "$kscen run --compare lab" "$kscen" run --compare lab)
	line="$kscen plot --flame basic/loops=3 $tmp/lres/s/20261201T000000Z-h.yaml -o f.svg"
	c4=$(bash -c '. "$1"; COMP_LINE=$2 COMP_POINT=$3; shift 3; COMP_WORDS=("$@") COMP_CWORD=4
		_kscen; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$line" \
		$(( ${#kscen} + 31 )) "$kscen" plot --flame basic/loops = 3 \
		"$tmp/lres/s/20261201T000000Z-h.yaml" -o f.svg)
	[ "$(echo $c1)" = "before v6.8-rc1 v6.8-rc2" ] && [ "$(echo $c2)" = "v6.8-rc1 v6.8-rc2" ] &&
		[ "$c3" = label: ] && [ "$(echo $c4)" = "3% 300000" ] &&
		pass completion_labels_and_flame_jobs || fail completion_labels_and_flame_jobs "[$c1] [$c2] [$c3] [$c4]"

	# the same in a real interactive bash on a terminal, as a user types it
	mkdir -p "$tmp/bin" && ln -sf "$root/usr/local/bin/kscen" "$tmp/bin/kscen"
	c1=$(/usr/bin/python3 tests/e2e/complete.py "$comp" "$tmp/bin" \
		"kscen plan $m --filter thread/threads=64" | tail -n1)
	c2=$(/usr/bin/python3 tests/e2e/complete.py "$comp" "$tmp/bin" \
		"kscen run -o $tmp/lres --compare label:bef" | tail -n1)
	c3=$(/usr/bin/python3 tests/e2e/complete.py "$comp" "$tmp/bin" \
		"kscen plan $fx/e2e/tiny.yaml --filter value/com" | tail -n1)
	[ "$c1" = thread/threads=64,loops=56,breakpoints=4,parallelism=2 ] && [ "$c2" = label:before ] &&
		[ "$c3" = "value/command=echo 'result: 12.5 usecs/op',metric_regex=result: ([0-9.]+),metric_name=latency,metric_unit=usecs/op" ] &&
		pass completion_in_interactive_bash || fail completion_in_interactive_bash "[$c1] [$c2] [$c3]"

	make -s uninstall DESTDIR="$root" PREFIX=/usr/local >/dev/null 2>&1
	left=$(find "$root" -type f | wc -l)
	[ "$left" = 0 ] && pass uninstall_leaves_nothing ||
		fail uninstall_leaves_nothing "$(find "$root" -type f | head -5)"
fi
run "$kscen" --version
[ $rc = 0 ] && grep -Eq '^kscen [0-9][^ ]* \(.+\)$' "$tmp/out" && pass version_has_git_describe ||
	fail version_has_git_describe "$(cat "$tmp/out")"
finish install
