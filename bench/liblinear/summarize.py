#!/usr/bin/python3
"""Summarise a bench/liblinear speed CSV: one line per configuration.

Usage: python3 bench/liblinear/summarize.py speed.csv > summary.md

Each tool cell is "total s (primal excess)", with "cap" when the tool stopped at its
iteration cap. The last columns give acfcd's default (acf+shrink with the primal Newton
fallback) training seconds and the ratios of liblinear 2.3.0's, ll250's (liblinear 2.50,
when run as an -anchor) and the paper's code's total seconds to acfcd default's total
seconds, in wall and CPU time (CPU time is less disturbed on a shared machine).
"""
import csv
import sys
from collections import OrderedDict

rows = list(csv.DictReader(open(sys.argv[1])))
configs = OrderedDict()
tools = []
for r in rows:
    key = (r["set"], r["s"], r["C"])
    configs.setdefault(key, {})[r["tool"]] = r
    if r["tool"] not in tools:
        tools.append(r["tool"])

short = {t: t.replace("acfcd/", "") for t in tools}
anchors = [t for t in ("liblinear-2.3.0", "ll250", "acfpaper") if t in tools]
head = ["set", "-s", "C"] + [short[t] for t in tools] + ["default train s"]
for a in anchors:
    head += [a + " ÷ default", a + " ÷ default (cpu)"]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))


def cell(r):
    if r is None:
        return "–"
    st = r["status"]
    t = float(r["total_s"])
    ex = r["primal_excess"]
    flag = "" if st == "ok" else " " + st
    if r.get("note"):
        flag += " " + r["note"]
    try:
        exs = "%.0e" % float(ex)
    except ValueError:
        exs = "?"
    return "%.2f%s (%s)" % (t, flag, exs)


for key, byTool in configs.items():
    line = list(key) + [cell(byTool.get(t)) for t in tools]
    d = byTool.get("acfcd/default")
    line.append("%.2f" % float(d["train_s"]) if d else "–")
    for a in anchors:
        r = byTool.get(a)
        if d and r:
            line.append("%.1f×" % (float(r["total_s"]) / float(d["total_s"])))
            line.append("%.1f×" % (float(r["cpu_s"]) / float(d["cpu_s"])))
        else:
            line += ["–", "–"]
    print("| " + " | ".join(line) + " |")
