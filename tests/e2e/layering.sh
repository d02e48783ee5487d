#!/bin/bash
# layering.sh [KSCEN] - runner/'s layers as docs/architecture.md draws them:
# no #include or call from a folder to a higher one, no circle of files
# (tests/layering.py reads the table, the sources and the built objects).
# KSCEN names the build whose objects are read (./kscen -> build/).
. "$(dirname "$0")/lib.sh"

build=$(dirname "$(readlink -f "$kscen")")
check=tests/layering.py

if ! command -v python3 >/dev/null || ! command -v nm >/dev/null; then
	skip layering_points_down "needs python3 and nm (binutils)"
	finish layering; exit
fi

run python3 "$check" docs/architecture.md runner "$build"
if [ "$rc" = 0 ]; then pass layering_points_down
else fail layering_points_down "$(head -c 1500 "$tmp/out")$(head -c 300 "$tmp/err")"; fi

# The check itself: a copy of the tree where lib/ includes a header of
# cli/ and a workload calls the report, and one where two files call each
# other, must each be refused with the file and line.
mkdir -p "$tmp/src"
cp -r runner "$tmp/src/"
printf '#include "cli/cmd.h"\n' >> "$tmp/src/runner/lib/version.c"
run python3 "$check" docs/architecture.md "$tmp/src/runner" "$build"
if [ "$rc" = 1 ] && grep -q "^$tmp/src/runner/lib/version.c:[0-9]*: includes \"cli/cmd.h\": cli/ (layer 10) is above lib/ (layer 1)" "$tmp/out"
then pass layering_refuses_an_include_up
else fail layering_refuses_an_include_up "rc=$rc $(head -c 600 "$tmp/out")"; fi

# The calls are read from objects: build two tiny ones that call each
# other, placed where two files of one folder would be.
mkdir -p "$tmp/obj/runner/lib" "$tmp/tree/runner/lib"
for f in util version; do : > "$tmp/tree/runner/lib/$f.c"; done
printf 'int b(void);\nint a(void) { return b(); }\n' > "$tmp/tree/runner/lib/util.c"
printf 'int a(void);\nint b(void) { return a(); }\n' > "$tmp/tree/runner/lib/version.c"
printf '| layer | folder | what |\n| --- | --- | --- |\n| 1 | `lib/` | x |\n' > "$tmp/doc.md"
if cc -c -o "$tmp/obj/runner/lib/util.o" "$tmp/tree/runner/lib/util.c" &&
   cc -c -o "$tmp/obj/runner/lib/version.o" "$tmp/tree/runner/lib/version.c"; then
	(cd "$tmp/tree" && python3 "$OLDPWD/$check" "$tmp/doc.md" runner "$tmp/obj") >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q "^circle of 2 files: runner/lib/util.c:1 -> runner/lib/version.c (b)" "$tmp/out"
	then pass layering_refuses_a_circle
	else fail layering_refuses_a_circle "rc=$rc $(head -c 600 "$tmp/out")"; fi
else
	skip layering_refuses_a_circle "no C compiler"
fi
# Library code says what it has to say through lib/diag.h; only cli/
# prints (docs/architecture.md). A print to stderr or stdout outside cli/
# is named with its file and line. Flushing before a fork is not printing.
prints='fprintf\(\s*(stderr|stdout)|vfprintf\(\s*(stderr|stdout)|fput[sc]\([^;]*,\s*(stderr|stdout)\)'
prints+='|(^|[^a-z_])(perror|puts|putchar|printf|vprintf)\(|=\s*(stderr|stdout)\b'
found=$(grep -rnE "$prints" runner --include=*.c --include=*.h | grep -v '^runner/cli/')
if [ -z "$found" ]; then pass library_says_through_diag
else fail library_says_through_diag "$found"; fi
mkdir -p "$tmp/prints"
cp runner/lib/version.c "$tmp/prints/version.c"
printf 'void f(void) { fprintf(stderr, "x\\n"); }\n' >> "$tmp/prints/version.c"
if grep -nE "$prints" "$tmp/prints/version.c" | grep -q .
then pass library_print_is_found
else fail library_print_is_found "the pattern misses fprintf(stderr"; fi
finish layering
