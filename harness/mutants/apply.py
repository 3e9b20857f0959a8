#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compile every mutant of mutants.txt into one kernel tree ("make mutate").

    apply.py MUTANTS SRC_TREE OUT_TREE   write the mutated files into OUT_TREE
                                         (only those whose content changes)
    apply.py --list MUTANTS              print "N<TAB>NAME<TAB>TESTS<TAB>RULE<TAB>ALONE"
    apply.py --check MUTANTS SRC_TREE    check every anchor, write nothing
    apply.py --files MUTANTS             the files the mutants change

Each mutant replaces one or more anchors (text found exactly once in the
unmodified file; any run of white space in an anchor matches any run of
white space in the file, so indentation does not matter) by its "with"
text, in which MUTANT stands for
"(ue_mutant == N)": N is the mutant's position in MUTANTS, from 1, and
ue_mutant the kernel parameter that selects it at boot (0: none);
MUTANT[name] stands for the same test of the mutant of that name, for a
condition that several mutants need at one place.  An
anchor that is missing or not unique is an error: the source changed and
the mutant must be rebased on it.
"""
import os
import re
import sys

# Defined in the first file of the list, declared in the others
DEFINE = ("\n/* make mutate only: the number of the deliberate bug to run */\n"
          "int ue_mutant;\ncore_param(ue_mutant, ue_mutant, int, 0644);\n")
DECLARE = "\n/* make mutate only */\nextern int ue_mutant;\n"
HOME = "kernel/trace/trace_events_user.c"


def fail(msg):
    sys.stderr.write("[harness] ERROR: mutants: %s\n" % msg)
    sys.exit(1)


def parse(path):
    """[{n, name, rule, tests, pairs: [(file, anchor, with)]}]"""
    muts, cur, block, text, where = [], None, None, [], ""
    fname = None
    with open(path) as f:
        lines = f.read().split("\n")
    for no, line in enumerate(lines, 1):
        where = "%s:%d" % (os.path.basename(path), no)
        if block:
            if line == "end" and block == "with":
                cur["pairs"].append((fname, "\n".join(anchor), "\n".join(text)))
                block, text = None, []
            elif line == "with" and block == "anchor":
                anchor, text, block = text, [], "with"
            else:
                text.append(line)
            continue
        if not line.strip() or line.startswith("#"):
            continue
        key, _, val = line.partition(" ")
        val = val.strip()
        if key == "mutant":
            if not re.fullmatch(r"[a-z0-9-]+", val):
                fail("%s: a mutant name is [a-z0-9-]+" % where)
            if any(m["name"] == val for m in muts):
                fail("%s: mutant %s twice" % (where, val))
            cur = {"n": len(muts) + 1, "name": val, "rule": "", "tests": [],
                   "pairs": [], "alone": ""}
            muts.append(cur)
            fname = HOME
        elif cur is None:
            fail("%s: '%s' before the first 'mutant'" % (where, key))
        elif key == "rule":
            cur["rule"] = val
        elif key == "tests":
            cur["tests"] = val.replace(",", " ").split()
        elif key == "alone" and not val:
            cur["alone"] = "alone"
        elif key == "file":
            fname = val
        elif key == "anchor" and not val:
            block, text = "anchor", []
        else:
            fail("%s: unexpected line '%s'" % (where, line))
    if block:
        fail("%s: unterminated anchor/with block" % where)
    for m in muts:
        if not m["pairs"] or not m["tests"] or not m["rule"]:
            fail("mutant %s needs a rule, tests and at least one anchor" % m["name"])
    return muts


def insert_after_includes(text, what):
    """After the first run of #include lines"""
    lines = text.split("\n")
    first = next((i for i, l in enumerate(lines) if l.startswith("#include")), None)
    if first is None:
        fail("no #include line to put the ue_mutant parameter after")
    end = first
    while end < len(lines) and (lines[end].startswith("#include") or not lines[end].strip()):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[:end]) + "\n" + what + "\n".join(lines[end:])


# MUTANT[name] in a "with" text: true while the mutant of that name runs
MUTANT_OF = re.compile(r"MUTANT\[([a-z0-9-]+)\]")


def mutant_of(muts, m, name):
    n = next((o["n"] for o in muts if o["name"] == name), None)
    if n is None:
        fail("mutant %d %s: MUTANT[%s]: no such mutant" % (m["n"], m["name"], name))
    return "(ue_mutant == %d)" % n


def mutate(muts, src):
    files = [HOME] + sorted({p[0] for m in muts for p in m["pairs"]} - {HOME})
    out = {}
    for f in files:
        try:
            with open(os.path.join(src, f)) as fh:
                orig = fh.read()
        except OSError as e:
            fail("%s: %s" % (f, e))
        text = orig
        for m in muts:
            for pf, anchor, repl in m["pairs"]:
                if pf != f:
                    continue
                pat = re.compile(r"\s+".join(map(re.escape, anchor.split())))
                n = len(pat.findall(orig))
                if n != 1:
                    fail("mutant %d %s: anchor %s in %s (rebase it):\n%s" %
                         (m["n"], m["name"], "not found" if not n else "found %d times" % n,
                          f, anchor))
                found = list(pat.finditer(text))
                if len(found) != 1:
                    fail("mutant %d %s: its anchor overlaps another mutant's in %s" %
                         (m["n"], m["name"], f))
                repl = MUTANT_OF.sub(lambda r: mutant_of(muts, m, r.group(1)), repl)
                repl = repl.replace("MUTANT", "(ue_mutant == %d)" % m["n"])
                text = text[:found[0].start()] + repl.strip() + text[found[0].end():]
        out[f] = insert_after_includes(text, DEFINE if f == HOME else DECLARE)
    return out


def main():
    args = sys.argv[1:]
    if args[:1] == ["--list"] and len(args) == 2:
        for m in parse(args[1]):
            print("%d\t%s\t%s\t%s\t%s" % (m["n"], m["name"], ",".join(m["tests"]), m["rule"],
                                        m["alone"]))
        return
    if args[:1] == ["--files"] and len(args) == 2:
        muts = parse(args[1])
        print("\n".join([HOME] + sorted({p[0] for m in muts for p in m["pairs"]} - {HOME})))
        return
    if args[:1] == ["--check"] and len(args) == 3:
        mutate(parse(args[1]), args[2])
        return
    if len(args) != 3:
        fail("usage: apply.py [--list] MUTANTS [SRC_TREE [OUT_TREE]]")
    muts, src, dst = parse(args[0]), args[1], args[2]
    for f, text in mutate(muts, src).items():
        path = os.path.join(dst, f)
        try:
            with open(path) as fh:
                if fh.read() == text:
                    continue
        except OSError:
            pass
        with open(path, "w") as fh:
            fh.write(text)
        print(f)


if __name__ == "__main__":
    main()
