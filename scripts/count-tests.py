#!/usr/bin/env python3
"""Counts what a scripts/test run did and prints its closing line.

Reads the JUnit XML files that swift-testing wrote (the host run's and the VM's) and a
steps file of `pass|fail NAME` lines for the checks that are not Swift tests (the build,
the README's demo, each fuzz target). A test counts once by its id (suite + name): failed
if it failed in any run, passed if it passed in any run, skipped only if every run that
listed it skipped it (the Hardware suites skip on the host and run in the VM). Prints the
failed and skipped tests by name, then `tests: P passed, F failed, S skipped` as the last
line. Exit status 0 when nothing failed and something passed, else 1.

    scripts/count-tests.py --steps FILE [XUNIT.xml ...]
"""
import sys
import xml.etree.ElementTree as ET


def outcomes(path):
    """(test id, outcome, detail) for every testcase in one JUnit file."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as error:
        yield (f"{path} (unreadable results: {error})", "fail", "")
        return
    for case in root.iter("testcase"):
        test = f"{case.get('classname', '?')}/{case.get('name', '?')}"
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        skipped = case.find("skipped")
        if failure is not None:
            yield (test, "fail", (failure.get("message") or failure.text or "").strip())
        elif skipped is not None:
            yield (test, "skip", (skipped.text or skipped.get("message") or "").strip())
        else:
            yield (test, "pass", "")


def main(argv):
    steps, files = None, []
    args = iter(argv)
    for arg in args:
        if arg == "--steps":
            steps = next(args, None)
        else:
            files.append(arg)
    rank = {"skip": 0, "pass": 1, "fail": 2}
    results = {}
    for path in files:
        for test, outcome, detail in outcomes(path):
            if test not in results or rank[outcome] > rank[results[test][0]]:
                results[test] = (outcome, detail)
    if steps:
        try:
            with open(steps) as lines:
                for line in lines:
                    outcome, _, name = line.strip().partition(" ")
                    if outcome in rank and name:
                        results[f"step/{name}"] = (outcome, "")
        except OSError:
            pass
    for label, kind in (("failed", "fail"), ("skipped", "skip")):
        for test in sorted(t for t, (o, _) in results.items() if o == kind):
            detail = results[test][1]
            print(f"{label}: {test}" + (f": {detail.splitlines()[0]}" if detail else ""))
    count = {kind: sum(1 for o, _ in results.values() if o == kind) for kind in rank}
    print(f"tests: {count['pass']} passed, {count['fail']} failed, {count['skip']} skipped")
    return 0 if count["fail"] == 0 and count["pass"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
