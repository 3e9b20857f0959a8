#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw output of ue_bench into the "make bench" results.

    report.py RAW OUTDIR

RAW holds "row KEY UNIT V1 V2 ..." lines (one value per repetition).
Writes OUTDIR/table.txt (also printed), OUTDIR/results.json and the
gnuplot data files OUTDIR/write.dat and OUTDIR/goals.dat.  Exit status 1
when a row the table needs is missing or the program reported an error;
a missed goal is a result, not a failure.
"""
import json
import statistics
import sys

SIZES = (4, 32, 256, 2048)
FANOUT = (1, 10, 100, 1000)


def load(path):
    rows, notes, errors = {}, [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0] == "row" and len(parts) >= 4:
                try:
                    rows[parts[1]] = (parts[2], [float(v) for v in parts[3:]])
                except ValueError:
                    errors.append(line.strip())
            elif parts[0] == "error":
                errors.append(line.strip())
            elif parts[0] == "#":
                notes.append(line[1:].strip())
    return rows, notes, errors


def stats(unit, values):
    med = statistics.median(values)
    spread = (max(values) - min(values)) / med * 100 if med else 0.0
    return {"unit": unit, "median": med, "min": min(values),
            "max": max(values), "spread_pct": spread, "n": len(values),
            "values": values}


def fmt(v, unit):
    if unit == "ev/s":
        return f"{v / 1000:.1f} k/s"
    if unit == "x":
        return f"{v:.2f}x"
    if unit == "us":
        unit = "\u00b5s"
    if abs(v) >= 100:
        return f"{v:.0f} {unit}"
    if abs(v) >= 10:
        return f"{v:.1f} {unit}"
    return f"{v:.2f} {unit}"


class Report:
    def __init__(self, rows):
        self.raw = rows
        self.stats = {k: stats(u, v) for k, (u, v) in rows.items()}
        self.lines = []     # (label, value, spread, compare, goal, result)
        self.goals = []
        self.missing = []

    def get(self, key):
        s = self.stats.get(key)
        if s is None and key not in self.missing:
            self.missing.append(key)
        return s

    def med(self, key):
        s = self.get(key)
        return s["median"] if s else None

    def line(self, label, key, compare="", goal="", result=""):
        s = self.get(key)
        if s is None:
            self.lines.append((label, "n/a", "", compare, goal,
                               result or "NO DATA"))
            return
        self.lines.append((label, fmt(s["median"], s["unit"]),
                           f"\u00b1{s['spread_pct'] / 2:.0f}%", compare,
                           goal, result))

    def goal(self, name, value, op, limit):
        """A goal on a ratio; returns the (goal text, PASS/MISS) pair."""
        if value is None:
            status = "NO DATA"
        elif op == "<=":
            status = "PASS" if value <= limit else "MISS"
        else:
            status = "PASS" if value >= limit else "MISS"
        self.goals.append({"name": name, "value": value, "op": op,
                           "limit": limit, "status": status})
        sym = "\u2264" if op == "<=" else "\u2265"
        return f"{sym} {limit:.2f}x", status

    def section(self, title):
        self.lines.append((title, None, None, None, None, None))


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def paired(rep, a, b):
    """Median of the per-repetition ratios a/b: the program interleaves
    the two sides rep by rep, so that drifting host load cancels out."""
    sa, sb = rep.get(a), rep.get(b)
    if not sa or not sb:
        return None
    if len(sa["values"]) != len(sb["values"]) or 0 in sb["values"]:
        return ratio(sa["median"], sb["median"])
    return statistics.median(x / y for x, y in zip(sa["values"], sb["values"]))


def rtext(r, what):
    return f"{r:.2f}x {what}" if r is not None else f"? {what}"


def write_rows(rep, p, with_goal):
    """The enabled-write rows; @p prefixes the keys ("" or "icount_")."""
    for n in SIZES:
        r = paired(rep, f"{p}write_ftrace_{n}", f"{p}write_raw_{n}")
        goal, res = ("", "info")
        if n == 32 and with_goal:
            goal, res = rep.goal("enabled write 32 B (ftrace) / trace_marker_raw",
                                 r, "<=", 1.00)
        rep.line(f"  ftrace attached, {n} B payload", f"{p}write_ftrace_{n}",
                 rtext(r, "of raw"), goal, res)
        r1 = paired(rep, f"{p}write1_ftrace_{n}", f"{p}write_raw_{n}")
        rep.line(f"  same with write(), index + payload", f"{p}write1_ftrace_{n}",
                 rtext(r1, "of raw"), "", "info")
        kept = " (kernel keeps 1 KiB)" if n + 4 > 1024 else ""
        rep.line(f"  trace_marker_raw, {n + 4} B{kept}", f"{p}write_raw_{n}")
    for name, key in (("writev", "write_nullv_32"), ("write()", "write_null1_32")):
        r = ratio(rep.med(p + key), rep.med(f"{p}write_raw_32"))
        rep.line(f"  VFS floor: {name} of 36 B to /dev/null", p + key,
                 rtext(r, "of raw"), "", "info")
    for n in SIZES:
        r = ratio(rep.med(f"{p}write_perf_{n}"), rep.med(f"{p}write_raw_{n}"))
        rep.line(f"  perf attached (mmap ring, drained), {n} B",
                 f"{p}write_perf_{n}", rtext(r, "of raw"), "", "info")


def build(rep):
    # The instruction-counted rows, when there, carry the goal: host load
    # does not move them
    icount = any(k.startswith("icount_") for k in rep.stats)
    rep.section("1. Enabled write: writev(index + payload) vs write() to trace_marker_raw")
    write_rows(rep, "", not icount)
    if icount:
        rep.section("1i. The same, instruction-counted guest (QEMU -icount shift=0,"
                    " 1 CPU: 1 ns = 1 instruction)")
        write_rows(rep, "icount_", True)

    rep.section("2. Disabled path: test the enable bit and skip, per iteration")
    chk, emp = rep.med("disabled_check"), rep.med("disabled_empty")
    diff = f"+{chk - emp:.2f} ns vs empty" if None not in (chk, emp) else ""
    rep.line("  bit test + skip", "disabled_check", diff, "", "info")
    rep.line("  empty loop", "disabled_empty")

    rep.section("3. Fan-out: write(\"1\") to the event's enable file, N processes registered")
    per = {}
    for n in FANOUT:
        t = rep.med(f"fanout_enable_{n}")
        per[n] = t / n if t is not None else None
        cmp = f"{per[n]:.1f} \u00b5s/process" if per[n] is not None else ""
        goal, res = "", "info"
        if n == 1000:
            goal, res = rep.goal("fan-out per-process cost N=1000 / N=10",
                                 ratio(per[1000], per[10]), "<=", 1.5)
            cmp += ", " + rtext(ratio(per[1000], per[10]), "of N=10")
        rep.line(f"  N = {n}", f"fanout_enable_{n}", cmp, goal, res)

    rep.section("4. Registration: one DIAG_IOCSREG (median of the 21 around it)")
    for kind, what in (("distinct", "distinct events on one fd"),
                       ("sameevent", "one event at distinct addresses")):
        r = paired(rep, f"reg_{kind}_10000", f"reg_{kind}_100")
        rep.line(f"  100th, {what}", f"reg_{kind}_100")
        goal, res = rep.goal(f"registration 10,000th / 100th ({what})", r,
                             "<=", 2.0)
        rep.line(f"  10,000th, {what}", f"reg_{kind}_10000",
                 rtext(r, "of 100th"), goal, res)

    rep.section("5. Write throughput, ftrace attached, 4 B payload, writers pinned")
    r = paired(rep, "tput_2cpu", "tput_1cpu")
    rep.line("  1 writer CPU", "tput_1cpu")
    goal, res = rep.goal("throughput 2 writer CPUs / 1", r, ">=", 1.8)
    rep.line("  2 writer CPUs", "tput_2cpu", rtext(r, "of 1 CPU"), goal, res)
    r = paired(rep, "tput_ctl_2cpu", "tput_ctl_1cpu")
    rep.line("  control: getppid() loop, 1 CPU", "tput_ctl_1cpu")
    rep.line("  control: getppid() loop, 2 CPUs", "tput_ctl_2cpu",
             rtext(r, "of 1 CPU (the host's limit)"), "", "info")

    rep.section("6. fork() in a process with enablers (median of 100 forks)")
    r = paired(rep, "fork_1000", "fork_0")
    rep.line("  0 enablers", "fork_0")
    goal, res = rep.goal("fork with 1000 enablers / none", r, "<=", 2.0)
    rep.line("  1000 enablers", "fork_1000", rtext(r, "of none"), goal, res)

    rep.section("7. Memory: /proc/meminfo Slab delta over 10,000 registrations")
    rep.line("  per event (incl. its tracefs files)", "slab_per_event", "", "",
             "info")
    rep.line("  per enabler", "slab_per_enabler", "", "", "info")


def render(rep, notes):
    head = ("benchmark", "median", "spread", "comparison", "goal", "result")
    body = [ln for ln in rep.lines if ln[1] is not None]
    w = [max(len(str(x[i])) for x in body + [head]) for i in range(6)]
    out = []

    def put(cols):
        out.append("  ".join(str(c).ljust(w[i]) if i != 1 else
                             str(c).rjust(w[i]) for i, c in enumerate(cols))
                   .rstrip())

    put(head)
    out.append("-" * (sum(w) + 10))
    for ln in rep.lines:
        if ln[1] is None:
            out.append(ln[0])
        else:
            put(ln)
    out.append("")
    npass = sum(g["status"] == "PASS" for g in rep.goals)
    out.append(f"goals: {npass} PASS, {len(rep.goals) - npass} MISS"
               f" (of {len(rep.goals)}); spread = half the min-max range"
               f" of the repetitions, relative to the median;")
    out.append("ratios of interleaved rows are medians of the per-repetition"
               " ratios")
    out.append("absolute numbers come from QEMU TCG: only the ratios matter")
    for n in notes:
        if n.startswith(("kernel", "reps")):
            out.append(n)
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows, notes, errors = load(sys.argv[1])
    outdir = sys.argv[2]
    rep = Report(rows)
    build(rep)
    table = render(rep, notes)
    with open(f"{outdir}/table.txt", "w", encoding="utf-8") as f:
        f.write(table)
    sys.stdout.write(table)

    with open(f"{outdir}/results.json", "w", encoding="utf-8") as f:
        json.dump({"notes": notes, "errors": errors, "rows": rep.stats,
                   "goals": rep.goals}, f, indent=1, sort_keys=True)
        f.write("\n")

    with open(f"{outdir}/write.dat", "w", encoding="utf-8") as f:
        f.write("# payload ftrace_ns raw_ns perf_ns ftrace_write1_ns\n")
        for n in SIZES:
            vals = [rep.med(f"write{k}_{n}")
                    for k in ("_ftrace", "_raw", "_perf", "1_ftrace")]
            f.write(f"{n} " + " ".join("NaN" if v is None else f"{v:.1f}"
                                       for v in vals) + "\n")
    short = ["write 32 B\\n/ raw", "fan-out\\n1000 / 10", "reg distinct\\n10k / 100",
             "reg same ev.\\n10k / 100", "2 writers\\n/ 1", "fork 1000\\n/ 0"]
    with open(f"{outdir}/goals.dat", "w", encoding="utf-8") as f:
        f.write("# label measured limit pass(1/0); >= goals are inverted\n")
        for g, s in zip(rep.goals, short):
            v, lim = g["value"], g["limit"]
            if g["op"] == ">=" and v:
                v, lim = 1 / v, 1 / lim
            f.write(f"\"{s}\" {'NaN' if v is None else f'{v:.3f}'} {lim:.3f} "
                    f"{int(g['status'] == 'PASS')}\n")

    for e in errors:
        print(f"ERROR from the guest: {e}", file=sys.stderr)
    if rep.missing:
        print(f"missing rows: {' '.join(rep.missing)}", file=sys.stderr)
    return 1 if errors or rep.missing else 0


if __name__ == "__main__":
    sys.exit(main())
