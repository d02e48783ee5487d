#!/bin/bash
# readme.sh [KSCEN [all]] - end-to-end tests: the README's examples run as
# written, in order, in a fresh clone of this repository (its tracked files
# as they are in the working tree, KSCEN as its ./kscen and build), so that
# no example needs a file, a label or a run that no earlier one made. The
# block run is the one after the README's "tests/e2e/readme.sh runs" mark;
# each "$ " line is a command, a trailing "  # ..." its comment.
#
# Under make test each run takes at most 2 samples a job
# (KSCEN_TEST_REPEAT=2, a test hook the runs record); with "all" (make
# test-docs) the commands run exactly as a reader runs them, for minutes.
. "$(dirname "$0")/lib.sh"

all=${2:-}
repo=$(pwd)
clone=$tmp/clone
git clone -q "$repo" "$clone" 2>"$tmp/err" || { fail readme_clone "$(cat "$tmp/err")"; finish readme; exit; }
# the working tree's tracked files over it: what is tested
git ls-files -z | (cd "$repo" && xargs -0 tar cf -) | tar xf - -C "$clone"
# what make left: the binary under test and its build, newer than the sources
bdir=$(dirname "$kscen")
cp -a "$bdir" "$clone/build" && find "$clone/build" -exec touch {} +
ln -sf "$clone/build/$(basename "$kscen")" "$clone/kscen"

# The commands, one a line: after the mark, the "$ " lines of the next block.
awk '/tests\/e2e\/readme.sh runs/ { m = 1; next }
     m && /^```/ { if (in_) exit; in_ = 1; next }
     in_ && /^\$ / { sub(/^\$ /, ""); sub(/  +#.*$/, ""); print }' README.md >"$tmp/cmds"
n=$(wc -l <"$tmp/cmds")
[ "$n" -ge 20 ] && pass readme_block_found || fail readme_block_found "$n commands"

export KSCEN_TEST_REPEAT=2
[ "$all" = all ] && unset KSCEN_TEST_REPEAT
i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	name=readme_$(printf '%02d' $i)_$(echo "$cmd" | sed 's/^\.\/kscen //; s/[^A-Za-z0-9]\+/_/g' | cut -c1-40)
	why=""
	case $cmd in
	*" vm --kernel "*|*" ab --kernel "*)
		for k in $(echo "$cmd" | grep -o -- '--kernel [^ ]*' | cut -d' ' -f2); do
			[ -e "$k" ] || why="needs the kernel $k (a reader's own)"
		done ;;
	*"--profile"*|*"--flame"*)
		why=$(need_bpf) || true
		[ -n "$why" ] && why="$why: profiles" ;;
	"make install"*)
		# a build of the clone: install.sh tests make install under make test
		[ "$all" = all ] || why="make test-docs runs it (install.sh: make install)"
		[ -z "$why" ] && { why=$(need_tool scdoc scdoc) || true; } ;;
	esac
	if [ -n "$why" ]; then
		skip "$name" "$why"
		continue
	fi
	(cd "$clone" && bash -c "$cmd") >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	case $cmd in
	*"--gate "*) ok="0 1" ;;	# a gate may trip on a real change
	*"--bisect "*) ok="0 1 125"	# a verdict, said on the last line
		tail -n1 "$tmp/out" | grep -Eqx 'bisect: (good|bad|cannot tell \(skip\))' || ok= ;;
	*) ok=0 ;;
	esac
	if [[ " $ok " == *" $rc "* ]]; then
		pass "$name"
	else
		fail "$name" "'$cmd' exit $rc: $(tail -c 300 "$tmp/err")"
	fi
done <"$tmp/cmds"

# what the lines promise: labels found, the bisect verdict, the partial merge
[ -e "$clone/flame.svg" ] || [ -n "$(need_bpf)" ] && pass readme_flame_written ||
	fail readme_flame_written "no flame.svg"
(cd "$clone" && ./kscen report merged.yaml) >"$tmp/out" 2>&1
grep -qx '# partial: shards 1/4 3/4 4/4 missing' "$tmp/out" && pass readme_merge_says_which_shards ||
	fail readme_merge_says_which_shards "$(head -n 5 "$tmp/out")"
ls "$clone"/results/breakpoints/*+v6.8-rc2.yaml "$clone"/results/breakpoints/*+good.yaml >/dev/null 2>&1 &&
	pass readme_labels_made_by_earlier_lines || fail readme_labels_made_by_earlier_lines "$(ls "$clone/results/breakpoints")"
finish readme
