#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the repository's own documents; print TAP lines, exit 1 on a failure.

    doccheck.py REPO

1. Every relative link of README.md and docs/*.md, [text](target) or
   [text](target#anchor), names a file or directory of REPO, and its
   anchor (a heading of the target, as GitHub makes anchors of headings)
   exists.
2. "make help" lists every target of the Makefile's .PHONY line, and
   README.md shows exactly that output (the block after "$ make help").
"""
import glob
import os
import re
import subprocess
import sys

LINK = re.compile(r"\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^\s*```")


def prose(path):
    """(number, line) of PATH outside fenced and indented code blocks"""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced and not line.startswith("    "):
                yield n, line


def anchors(path):
    """The anchors GitHub gives the headings of PATH"""
    seen = {}
    out = set()
    for _, line in prose(path):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        a = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        k = seen.get(a, 0)
        seen[a] = k + 1
        out.add(a if k == 0 else f"{a}-{k}")
    return out


def check_links(repo):
    docs = [os.path.join(repo, "README.md")] + sorted(glob.glob(os.path.join(repo, "docs", "*.md")))
    bad, n = [], 0
    for doc in docs:
        for num, line in prose(doc):
            # inline code may show link syntax without being a link
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"[a-z]+:", target):
                    continue
                n += 1
                path, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
                where = f"{os.path.relpath(doc, repo)}:{num}: {target}"
                if not os.path.exists(dest):
                    bad.append(f"{where}: no such file")
                elif anchor and (not dest.endswith(".md") or anchor not in anchors(dest)):
                    bad.append(f"{where}: no such heading")
    return n, len(docs), bad


def check_help(repo):
    bad = []
    out = subprocess.run(["make", "-s", "--no-print-directory", "-C", repo, "help"],
                         capture_output=True, text=True, check=False)
    lines = out.stdout.splitlines()
    if out.returncode != 0 or not lines:
        return 0, [f"make help failed: {out.stderr.strip()}"]
    listed = {w for line in lines for w in re.findall(r"\bmake (\S+)", line)}
    with open(os.path.join(repo, "Makefile"), encoding="utf-8") as f:
        phony = re.search(r"^\.PHONY:((?:.*\\\n)*.*)$", f.read(), re.M).group(1)
    for t in sorted(set(phony.replace("\\\n", " ").split()) - listed):
        bad.append(f"make help does not list the target {t}")
    with open(os.path.join(repo, "README.md"), encoding="utf-8") as f:
        readme = f.read().splitlines()
    try:
        i = readme.index("$ make help") + 1
        shown = readme[i:readme.index("```", i)]
    except ValueError:
        shown = None
    if shown is None:
        bad.append('README.md has no "$ make help" block ending with ```')
    elif shown != lines:
        bad.append("README.md's \"$ make help\" block differs from make help:")
        bad += [f"  README:    {a}\n  make help: {b}" for a, b in zip(shown + [""] * len(lines),
                                                              lines + [""] * len(shown))
                if a != b][:5]
    return len(lines), bad


def main():
    repo = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    rc = 0
    n, files, bad = check_links(repo)
    ok = "ok" if not bad else "not ok"
    print(f"{ok} - docs: the {n} relative links of README.md and docs/*.md ({files} files) "
          "point at existing files and headings")
    nhelp, badhelp = check_help(repo)
    ok2 = "ok" if not badhelp else "not ok"
    print(f"{ok2} - docs: make help lists every target ({nhelp} lines), README.md shows it")
    for b in bad + badhelp:
        print("".join(f"  # {line}\n" for line in b.split("\n")), end="")
    if bad or badhelp:
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
