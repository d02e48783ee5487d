#!/bin/bash
# plot.sh [KSCEN] - end-to-end tests: the plots read back from their SVG (plotcheck.py): tics, units, values, caps, captions, nothing outside the plot; the output's format, the ambiguous --history glob.
. "$(dirname "$0")/lib.sh"

if ! why=$(need_tool gnuplot gnuplot-nox); then
	skip plots "$why"
	finish plot
	exit
fi
pfx=$fx/results/plot.yaml
check=$(dirname "$0")/plotcheck.py
"$kscen" report --format json "$pfx" >"$tmp/plot.json" 2>/dev/null

# values: each point and error bar where the report says, in its unit
values_ok() {	# SVG SCALE...: one scale a panel (the report's unit per stored unit)
	/usr/bin/python3 - "$tmp/plot.json" "$check" "$@" <<'PY'
import json, runpy, sys, statistics
rep = json.load(open(sys.argv[1]))
panels = runpy.run_path(sys.argv[2])["panels"](sys.argv[3])
scales = [float(x) for x in sys.argv[4:]]
names = []
for j in rep["jobs"]:
    if j["name"] not in names:
        names.append(j["name"])
assert [p["title"] for p in panels] == names, [p["title"] for p in panels]
for p, name, scale in zip(panels, names, scales):
    tol = 1.5 * p["per_pixel"]
    jobs = [j["metrics"][0] for j in rep["jobs"] if j["name"] == name]
    for m in jobs:
        med, lo, hi = m["median"] * scale, m["ci_low"] * scale, m["ci_high"] * scale
        assert any(abs(v - med) < tol for v in p["values"]), (name, med, p["values"])
        assert any(abs(a - lo) < tol and abs(b - hi) < tol for a, b in p["bar_values"]), \
            (name, lo, hi, p["bar_values"])
    assert len(p["bars"]) == len(jobs), (name, p["bars"])
    x0, y0, x1, y1 = p["box"]
    # nothing outside the plot: every bar end and point strictly inside
    for x, top, bottom in p["bars"]:
        assert x0 < x < x1 and y0 + 0.5 < top and bottom < y1 - 0.5, (name, p["box"], top, bottom)
        # a cap at each end of each bar
        assert sum(1 for cx, cy, w in p["caps"] if abs(cx - x) < 0.5 and
                   (abs(cy - top) < 0.5 or abs(cy - bottom) < 0.5) and w > 3) == 2, (name, x)
    for x, y in p["points"]:
        assert x0 <= x <= x1 and y0 <= y <= y1, (name, x, y, p["box"])
PY
}

run "$kscen" plot "$pfx" -o "$tmp/sweep.svg"
if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/sweep.svg" "$check" <<'PY'
import runpy, sys
p = runpy.run_path(sys.argv[2])["panels"](sys.argv[1])
# a text axis as categories, once each; an integer axis at its values
assert p[0]["xtics"] == ["getpid", "getppid"], p[0]["xtics"]
assert p[1]["xtics"] == ["0", "1", "4"], p[1]["xtics"]
assert p[2]["xtics"] == ["a", "b"], p[2]["xtics"]
# the report's units: 0.3 usecs/op is nsecs/op there, exec's seconds ms
assert [x["ylabel"] for x in p] == ["nsecs/op", "usecs/op", "ms (wall_time)"], p
assert [x["caption"] for x in p] == [
    "error bars: the CI of each median (n=6, 96.9% CI)",
    "error bars: the CI of each median (n=5, 93.8% CI)",
    "error bars: the CI of each median (n=6, 96.9% CI)"], [x["caption"] for x in p]
PY
then pass plot_sweep_tics_units_captions; else fail plot_sweep_tics_units_captions "rc=$rc $(cat "$tmp/err")"; fi
values_ok "$tmp/sweep.svg" 1000 1 1000 && pass plot_sweep_values_caps_inside ||
	fail plot_sweep_values_caps_inside "see above"

# one job over runs: three copies of the fixture, 1, 1.25 and 0.9 times
hist=$tmp/hist/e2e-plot
mkdir -p "$hist"
/usr/bin/python3 - "$pfx" "$hist" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
for i, f in enumerate((1.0, 1.25, 0.9)):
    t = re.sub(r"^started: .*$", "started: '2026-12-0%dT10:00:00Z'" % (i + 1), src, flags=re.M)
    t = re.sub(r"samples: \[([^\]]*)\]", lambda m: "samples: [%s]" % ", ".join(
        repr(float(x) * f) for x in m[1].split(",")), t)
    open("%s/2026120%dT100000Z-vm.yaml" % (sys.argv[2], i + 1), "w").write(t)
PY
run "$kscen" plot --history 'bp/*' "$hist" -o "$tmp/h.svg"
[ $rc = 2 ] && [ ! -e "$tmp/h.svg" ] && grep -q "matches 3 jobs; name one, or --all" "$tmp/err" &&
	[ "$(grep -c '^  bp/breakpoints=[014]$' "$tmp/err")" = 3 ] && pass plot_history_ambiguous_lists_exit_2 ||
	fail plot_history_ambiguous_lists_exit_2 "rc=$rc $(cat "$tmp/err")"
run "$kscen" plot --history 'bp/*' --all "$hist" -o "$tmp/h.svg"
if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/h.svg" "$check" "$tmp/plot.json" <<'PY'
import json, runpy, sys
p = runpy.run_path(sys.argv[2])["panels"](sys.argv[1])
rep = {j["id"]: j["metrics"][0] for j in json.load(open(sys.argv[3]))["jobs"]}
assert [x["title"] for x in p] == ["bp/breakpoints=0", "bp/breakpoints=1", "bp/breakpoints=4"], p
for x in p:
    m = rep[x["title"]]
    tol = 1.5 * x["per_pixel"]
    assert x["xtics"] == ["2026-12-01T10:00Z", "2026-12-02T10:00Z", "2026-12-03T10:00Z"], x["xtics"]
    want = [m["median"] * f for f in (1, 1.25, 0.9)]
    assert all(abs(a - b) < tol for a, b in zip(x["values"], want)), (x["values"], want)
    for (lo, hi), f in zip(x["bar_values"], (1, 1.25, 0.9)):
        assert abs(lo - m["ci_low"] * f) < tol and abs(hi - m["ci_high"] * f) < tol, (lo, hi)
    x0, y0, x1, y1 = x["box"]
    assert all(y0 + 0.5 < t and b < y1 - 0.5 for _, t, b in x["bars"]), (x["bars"], x["box"])
    assert x["caption"] == "error bars: the CI of each median (n=5, 93.8% CI)", x["caption"]
PY
then pass plot_history_all_values_inside; else fail plot_history_all_values_inside "rc=$rc $(cat "$tmp/err")"; fi
h=("$hist"/*.yaml)
run "$kscen" plot "${h[0]}" "${h[1]}" -o "$tmp/c.svg"
if [ $rc = 0 ] && /usr/bin/python3 - "$tmp/c.svg" "$check" <<'PY'
import runpy, sys
p = runpy.run_path(sys.argv[2])["panels"](sys.argv[1])[0]
assert p["ylabel"] == "new / old" and p["title"] == "median relative to the old run's", p
assert p["xtics"][:3] == ["sys", "sys call=getppid", "sys loops=2000"], p["xtics"]
# old at 1, new at 1.25, every bar inside with its caps
tol = 1.5 * p["per_pixel"]
assert sum(1 for v in p["values"] if abs(v - 1) < tol) == 9, p["values"]
assert sum(1 for v in p["values"] if abs(v - 1.25) < tol) == 9, p["values"]
x0, y0, x1, y1 = p["box"]
assert len(p["bars"]) == 18 and all(y0 + 0.5 < t and b < y1 - 0.5 for _, t, b in p["bars"])
assert p["caption"].startswith("error bars: the CI of each median relative to the old run's median (n=5..6,")
PY
then pass plot_compare_ratios_inside; else fail plot_compare_ratios_inside "rc=$rc $(cat "$tmp/err")"; fi

# the format follows -o's name, or is refused before anything is written
run "$kscen" plot "$pfx" -o "$tmp/p.PDF"
[ $rc = 0 ] && [ "$(head -c 5 "$tmp/p.PDF")" = "%PDF-" ] && pass plot_pdf_by_name ||
	fail plot_pdf_by_name "rc=$rc $(cat "$tmp/err")"
run "$kscen" plot "$pfx" -o "$tmp/p.png"
[ $rc = 0 ] && [ "$(head -c 4 "$tmp/p.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] &&
	pass plot_png_by_name || fail plot_png_by_name "rc=$rc $(cat "$tmp/err")"
run "$kscen" plot "$pfx" -o "$tmp/p.jpg"
[ $rc = 2 ] && [ ! -e "$tmp/p.jpg" ] && grep -q 'a .svg, a .png or a .pdf' "$tmp/err" &&
	pass plot_other_format_refused || fail plot_other_format_refused "rc=$rc $(cat "$tmp/err")"
run "$kscen" plot --flame 'sys/loops=1000,call=getpid' "$pfx" -o "$tmp/f.png"
[ $rc = 2 ] && [ ! -e "$tmp/f.png" ] && grep -q 'a flame graph is SVG' "$tmp/err" &&
	pass plot_flame_png_refused || fail plot_flame_png_refused "rc=$rc $(cat "$tmp/err")"

# text from a stored run is never script text: a value with a line break and quotes
sed "s|    call: 'getppid'|    call: \"get'p\\\\nsystem(\\\\\"touch $tmp/pwned\\\\\")\"|" "$pfx" >"$tmp/odd.yaml"
run "$kscen" plot "$tmp/odd.yaml" -o "$tmp/odd.svg"
if [ $rc = 0 ] && [ ! -e "$tmp/pwned" ] && grep -q 'touch' "$tmp/odd.yaml" && /usr/bin/python3 - "$tmp/odd.svg" "$check" <<'PY'
import runpy, sys
p = runpy.run_path(sys.argv[2])["panels"](sys.argv[1])[0]
assert p["xtics"][0] == "getpid" and p["xtics"][1].startswith("get'p system("), p["xtics"]
PY
then pass plot_text_stays_text; else fail plot_text_stays_text "rc=$rc $(cat "$tmp/err") $(ls "$tmp")"; fi
finish plot
