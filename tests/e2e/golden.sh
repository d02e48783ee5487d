#!/bin/bash
# golden.sh [KSCEN] [--update | --fail-fast] - the golden reports: each
# case of tests/golden/cases runs KSCEN and what it printed must be
# tests/golden/NAME.out byte for byte; a difference fails the case and
# prints the diff. --update writes the .out files instead (make golden),
# --fail-fast stops at the first difference (tests/mutate/).
. "$(dirname "$0")/lib.sh"
mode=${2:-}
cases=tests/golden/cases
declare -A var

# What kscen prints may depend on nothing but the files: no KSCEN_* hooks,
# one locale.
for v in $(compgen -e); do case $v in KSCEN_*) unset "$v" ;; esac; done
export LC_ALL=C TZ=UTC

# $NAME in @1 replaced by var[NAME]
expand() {
	local s=$1 out= name
	while [[ $s =~ ^([^$]*)\$([A-Za-z_][A-Za-z0-9_]*)(.*)$ ]]; do
		name=${BASH_REMATCH[2]}
		[ -n "${var[$name]+set}" ] || { echo "$cases: \$$name is not set" >&2; return 1; }
		out+=${BASH_REMATCH[1]}${var[$name]}
		s=${BASH_REMATCH[3]}
	done
	printf '%s' "$out$s"
}

# one case's output as the .out file holds it
render() {
	cat "$tmp/out"
	if [ -s "$tmp/err" ]; then echo '--- stderr'; cat "$tmp/err"; fi
	if [ "$rc" != 0 ]; then echo "--- exit $rc"; fi
}

set -f
nr=0
while read -r name rest; do
	case $name in '' | '#'*) continue ;; esac
	if [[ $name =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ && -z $rest ]]; then
		var[${BASH_REMATCH[1]}]=$(expand "${BASH_REMATCH[2]}") || exit 1
		continue
	fi
	args=$(expand "$rest") || exit 1
	# shellcheck disable=SC2086	# words split at blanks, by design
	run "$kscen" $args
	nr=$((nr + 1))
	want=tests/golden/$name.out test=golden_${name//-/_}
	if [ "$mode" = --update ]; then
		render >"$want"
		pass "$test"
	elif render | cmp -s - "$want"; then
		pass "$test"
	else
		fail "$test" "kscen $args: output differs from $want (make golden rewrites it):"
		render | diff -u --label "$want" --label "kscen $args" "$want" - | head -n 80
		[ "$mode" = --fail-fast ] && break
	fi
done <"$cases"
set +f
[ "$nr" -gt 0 ] || fail golden_cases "no case in $cases"
# every .out file is a case's: a case taken out of the table takes its file
for f in tests/golden/*.out; do
	[ -e "$f" ] || continue
	n=$(basename "$f" .out)
	grep -q "^$n[[:space:]]" "$cases" || fail golden_files "$f: no such case in $cases"
done
finish golden
