#!/usr/bin/python3
# plotcheck.py - reads back what a gnuplot SVG of kscen's shows (tests/e2e/plot.sh):
#
#   plotcheck.py FILE.svg   prints the panels as JSON
#
# Each panel: its title, the plot area (the border), the tic labels of
# both axes, the y axis label, the caption, and the data: every point and
# every vertical error bar with its caps, in pixels and, through the
# numbered y tics, in the axis' values. Only what gnuplot's svg terminal
# writes (5.4): paths of M/L segments, points as <use> translated, texts
# in translated groups.
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = {"s": "http://www.w3.org/2000/svg", "x": "http://www.w3.org/1999/xlink"}
SVG = "{%s}" % NS["s"]


def translate(el):
    m = re.search(r"translate\(([-\d.]+),([-\d.]+)\)", el.get("transform", ""))
    return (float(m[1]), float(m[2])) if m else None


def segments(d):
    """The straight segments of a path: ((x0, y0), (x1, y1))."""
    out, cur = [], None
    for op, x, y in re.findall(r"([ML])\s*([-\d.]+),([-\d.]+)", d):
        p = (float(x), float(y))
        if op == "L" and cur:
            out.append((cur, p))
        cur = p
    return out


def walk(el, plot, items):
    """Texts, tic marks, borders, and the data of gnuplot_plot_* groups."""
    gid = el.get("id", "")
    if gid.startswith("gnuplot_plot_"):
        plot = gid
    for ch in el:
        tag = ch.tag.replace(SVG, "")
        if tag == "text":
            g = el
            items.append(("text", "".join(ch.itertext()).strip(), translate(g),
                          g.get("text-anchor"), "rotate" in g.get("transform", "")))
        elif tag == "path" and ch.get("d", "").rstrip().endswith("Z"):
            items.append(("border", segments(ch.get("d"))))
        elif tag == "path" and plot:
            items.append(("data", plot, segments(ch.get("d", ""))))
        elif tag == "path" and ch.get("stroke") == "black":
            items.append(("tic", segments(ch.get("d", ""))))
        elif tag == "use" and plot and ch.get("color") != "#FFFFFF":
            # (a white point is the blank under a point of "bars front")
            items.append(("point", plot, translate(ch)))
        walk(ch, plot, items)


def panel_of(plot_id):
    """gnuplot_plot_2b: the second panel of a multiplot ("a" the first)."""
    m = re.match(r"gnuplot_plot_\d+([a-z]?)$", plot_id)
    return ord(m[1]) - ord("a") if m and m[1] else 0


def panels(path):
    items = []
    walk(ET.parse(path).getroot(), None, items)
    out, borders = [], []
    for it in items:
        if it[0] == "border":
            xs = [p[0] for s in it[1] for p in s]
            ys = [p[1] for s in it[1] for p in s]
            box = (min(xs), min(ys), max(xs), max(ys))
            if box not in borders:
                borders.append(box)
    for n, box in enumerate(borders):
        cur = {"box": box, "title": None, "xtics": [], "ytics": [], "ylabel": None,
               "caption": None, "points": [], "bars": [], "caps": []}
        out.append(cur)
        x0, y0, x1, y1 = box
        marks = [a[1] for it in items if it[0] == "tic" for (a, b) in it[1]
                 if abs(a[0] - x0) < 0.01 and abs(a[1] - b[1]) < 0.01 and
                 0 < b[0] - a[0] < 20 and y0 - 1 <= a[1] <= y1 + 1]
        for it in items:
            if it[0] == "text":
                _, s, pos, anchor, rot = it
                if not pos:
                    continue
                x, y = pos
                if rot and x < x0 and y0 <= y <= y1:
                    cur["ylabel"] = s
                elif anchor == "end" and x < x0 and y0 - 8 <= y <= y1 + 8:
                    # the text sits a little below its tic mark
                    near = [m for m in marks if 0 <= y - m < 8]
                    cur["ytics"].append((s, near[0] if near else None))
                elif y > y1 and y - y1 < 100 and x0 <= x <= x1 and (
                        anchor == "middle" and y - y1 < 25 or rot or anchor == "start"):
                    cur["xtics"].append((s, x))
                elif y < y0 and y0 - y < 30 and anchor == "middle":
                    cur["title"] = s
                elif s.startswith("error bars:") and y > y1 and y - y1 < 200:
                    cur["caption"] = s
            elif it[0] == "point" and it[2] and panel_of(it[1]) == n:
                if it[2][0] <= x1 + 1:     # right of the plot: the key
                    cur["points"].append(it[2])
            elif it[0] == "data" and panel_of(it[1]) == n:
                for (a, b) in it[2]:
                    if a[0] > x1 + 1 and b[0] > x1 + 1:
                        continue    # the key's sample
                    if abs(a[0] - b[0]) < 0.01:
                        cur["bars"].append((a[0], min(a[1], b[1]), max(a[1], b[1])))
                    elif abs(a[1] - b[1]) < 0.01 and abs(b[0] - a[0]) < 20:
                        cur["caps"].append(((a[0] + b[0]) / 2, a[1], abs(b[0] - a[0])))
        # pixels to values, through two numbered y tics and their marks
        nums = []
        for s, y in cur["ytics"]:
            try:
                if y is not None:
                    nums.append((float(s.replace(",", "")), y))
            except ValueError:
                pass
        if len(nums) >= 2:
            (v0, p0), (v1, p1) = nums[0], nums[-1]
            k = (v1 - v0) / (p1 - p0)
            cur["values"] = [round(v0 + (y - p0) * k, 6) for (_, y) in cur["points"]]
            cur["bar_values"] = [(round(v0 + (lo - p0) * k, 6), round(v0 + (hi - p0) * k, 6))
                                 for (_, hi, lo) in cur["bars"]]
            cur["per_pixel"] = abs(k)
        cur["xtics"] = [s for s, _ in sorted(cur["xtics"], key=lambda t: t[1])]
        cur["ytics"] = [s for s, _ in cur["ytics"]]
    return out


if __name__ == "__main__":
    json.dump(panels(sys.argv[1]), sys.stdout, indent=1)
