#!/usr/bin/env python3
"""Checks a short `otbench sfu --json` run (scripts/test): both SFUs forwarded the stream.

For every N: less than 1 % of the packets lost at the subscribers, whole frames at the
slowest subscriber, no packet that failed SRTP authentication, for OTKit (`value`) and
Janus (`baseline`) alike. The goal rows (CPU and memory against Janus) are not judged
here: they are figures for docs/benchmarks.md, not a pass/fail of the build.
Usage: check-otbench-sfu.py RESULT.json
"""
import json
import sys

try:
    with open(sys.argv[1]) as f:
        report = json.load(f)
except (OSError, ValueError) as error:
    print(f"otbench sfu: no JSON report ({error}); the scenario failed", file=sys.stderr)
    sys.exit(1)
rows = report.get("results", [])
problems = []
checked = 0
for row in rows:
    name = row["name"]
    for side, key in (("OTKit", "value"), ("Janus", "baseline")):
        figure = row.get(key)
        if "packets lost at the subscribers" in name:
            checked += 1
            if figure is None or figure >= 1:
                problems.append(f"{side}: {name} = {figure} %")
        elif "whole frames at the slowest subscriber" in name:
            checked += 1
            if not figure or figure <= 0:
                problems.append(f"{side}: {name} = {figure}")
        elif "failed SRTP authentication" in name:
            checked += 1
            if figure is None or figure != 0:
                problems.append(f"{side}: {name} = {figure}")
if checked == 0:
    problems.append("no loss, frame or authentication rows in the report")
for problem in problems:
    print(f"otbench sfu: {problem}", file=sys.stderr)
print(f"otbench sfu: {checked} figures checked, {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
