#!/usr/bin/env python3
"""Writes the synthetic source tree of the sync benchmark (services/sync/benches/sync_tree/
tree.rs, the same files byte for byte): `make-tree.py DIR [FILES]` (default 100,000).
Code files in many folders; every 33rd file a skill, rule or doc of one of 40 packages.
docs/sizing.md measures with it."""

import os
import sys


def contribution(n):
    package = f"packages/pkg{n % 40}"
    kind = n % 3
    if kind == 0:
        return (f"{package}/skills/skill{n}/SKILL.md",
                f"---\nname: skill{n}\ndescription: does thing {n}\n---\n# Skill {n}\n\nSteps.\n\n## Notes\n\nMore.\n")
    if kind == 1:
        return f"{package}/rules/rule{n}.md", f"---\nname: rule{n}\n---\nAlways do {n}.\n"
    return f"{package}/.claude/docs/doc{n}.md", f"---\ntitle: Doc {n}\n---\n# Doc\n\nText {n}.\n"


def main():
    root = sys.argv[1]
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    for n in range(files):
        if n % 33 == 0:
            path, content = contribution(n)
        else:
            path = f"src/area{n % 50}/module{n % 977}/file{n}.rs"
            content = f"// file {n}\npub fn f{n}(x: u64) -> u64 {{\n    x.wrapping_mul({n})\n}}\n"
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as out:
            out.write(content)


if __name__ == "__main__":
    main()
