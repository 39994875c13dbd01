#!/usr/bin/env python3
"""Fails when a public Swift declaration has no doc comment (`///` or `/** */`) above it.

Every public symbol must say what it does and what it costs (developers' guide). Run
from the repository root; scans Sources/.
"""
import pathlib
import re
import sys

DECL = re.compile(r"^\s*(@\w+(\([^)]*\))?\s+)*(public|open)\s+(?!import)")
missing = []
for path in sorted(pathlib.Path("Sources").rglob("*.swift")):
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        if not DECL.match(line):
            continue
        j = i - 1
        while j >= 0 and (lines[j].strip().startswith("@") or lines[j].strip() == ""):
            if lines[j].strip() == "":
                break
            j -= 1
        above = lines[j].strip() if j >= 0 else ""
        if not (above.startswith("///") or above.endswith("*/")):
            missing.append(f"{path}:{i + 1}: {line.strip()}")
if missing:
    print("public declarations without a doc comment:")
    print("\n".join(missing))
    sys.exit(1)
print("doc comments: every public declaration has one")
