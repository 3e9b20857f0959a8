#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the raw output of ue_bench into the "make bench" results.

    report.py RAW OUTDIR
    report.py --readme SECTION README

RAW holds "row KEY UNIT V1 V2 ..." lines (one value per repetition; keys
of the instruction-counted boot start with "icount_", those of the
profiles with "prof_") and "skip KEY SECONDS" lines (a row the program
did not measure, since it would have taken that long), OUTDIR/prof/ the
function_graph traces of the
profiling boot and the lists of functions by object.  Writes
OUTDIR/table.txt (also printed), OUTDIR/results.json, OUTDIR/readme.md
(the "Performance" section of docs/results.md) and the gnuplot data files
OUTDIR/write.dat and OUTDIR/goals.dat.  Exit status 1 when a row the
table needs is missing or the program reported an error; a missed goal
is a result, not a failure.

With --readme, replaces the text between the "make bench" markers of
the file README (docs/results.md) by the file SECTION.
"""
import datetime
import json
import os
import statistics
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import graphprof as prof  # noqa: E402  (harness/bench/graphprof.py)

SIZES = (4, 32, 256, 2048)
FANOUT = (1, 10, 100, 1000)
REAP = (1000, 30000)
BEGIN = "<!-- make bench: begin (written by harness/bench/report.py, do not edit) -->"
END = "<!-- make bench: end -->"

# Mainline (6.12) on the same benchmark, instruction-counted (issue 15):
# what creating an event costs there, where eventfs makes the files of an
# event directory only when they are looked up
MAINLINE_CREATE_INSTR = 14100
MAINLINE_CREATE_BYTES = 2800
# user_events' own share of creating an event (the instructions of the
# registration ioctl outside the 6.1 core functions it calls and outside
# the syscall, and the bytes it leaves allocated itself) before the work
# of issue 15, measured with this harness on the kernel of commit c2751ff:
# the goal when the 6.1 core alone costs more than mainline's total is to
# halve these.  (The split profile of section 8, on c2751ff's kernel with
# this harness on 2026-11-26: 11,287 instructions; the goal keeps the
# smaller figure.)
BASELINE = "c2751ff"
BASELINE_OURS_INSTR = 11242
BASELINE_OURS_BYTES = 776


def load(path):
    rows, skips, notes, errors = {}, {}, [], []
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
            elif parts[0] == "skip" and len(parts) == 3:
                try:
                    skips[parts[1]] = float(parts[2])
                except ValueError:
                    errors.append(line.strip())
            elif parts[0] == "error":
                errors.append(line.strip())
            elif parts[0] == "#":
                notes.append(line[1:].strip())
    return rows, skips, notes, errors


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
    if unit == "ms" and abs(v) >= 10000:
        v, unit = v / 1000, "s"
    if unit == "us":
        unit = "\u00b5s"
    if abs(v) >= 100:
        return f"{v:.0f} {unit}"
    if abs(v) >= 10:
        return f"{v:.1f} {unit}"
    return f"{v:.2f} {unit}"


def num(v):
    """An instruction or byte count: 12,345"""
    return f"{v:,.0f}"


NS = {"ns": 1.0, "us": 1000.0}


class Report:
    def __init__(self, rows, skips=None):
        self.stats = {k: stats(u, v) for k, (u, v) in rows.items()}
        self.skips = skips or {}    # key: projected seconds, not measured
        self.lines = []     # (label, value, spread, per-control, compare, goal, result)
        self.goals = []
        self.missing = []
        self.ctl_ns = None  # one getppid() of the wall-clock boot, ns
        self.ctl_rate = None

    def get(self, key):
        s = self.stats.get(key)
        if s is None and key not in self.missing and key not in self.skips:
            self.missing.append(key)
        return s

    def med(self, key):
        s = self.get(key)
        return s["median"] if s else None

    def per_ctl(self, s):
        """A wall-clock value in units of the boot's getppid() loop"""
        if s["unit"] in NS and self.ctl_ns:
            return f"{s['median'] * NS[s['unit']] / self.ctl_ns:.3g}"
        if s["unit"] == "ev/s" and self.ctl_rate:
            return f"{s['median'] / self.ctl_rate:.3g}"
        return ""

    def line(self, label, key, compare="", goal="", result="", wall=False):
        s = self.get(key)
        if s is None and key in self.skips:
            self.lines.append((label, "skipped", "", "",
                               f"would take ~{self.skips[key]:.0f} s", goal, "SKIP"))
            return
        if s is None:
            self.lines.append((label, "n/a", "", "", compare, goal,
                               result or "NO DATA"))
            return
        self.lines.append((label, fmt(s["median"], s["unit"]),
                           f"\u00b1{s['spread_pct'] / 2:.0f}%",
                           self.per_ctl(s) if wall else "", compare, goal, result))

    def text(self, label, value, compare="", goal="", result=""):
        self.lines.append((label, value, "", "", compare, goal, result))

    def goal(self, name, label, value, op, limit, unit="x", skipped=False):
        """A goal; returns the (goal text, PASS/MISS) pair.  @label names it
        on the chart; @skipped: the program did not measure it on purpose."""
        if value is None:
            status = "SKIP" if skipped else "NO DATA"
        elif op == "<=":
            status = "PASS" if value <= limit else "MISS"
        else:
            status = "PASS" if value >= limit else "MISS"
        self.goals.append({"name": name, "label": label, "value": value,
                           "op": op, "limit": limit, "unit": unit,
                           "status": status})
        sym = "\u2264" if op == "<=" else "\u2265"
        lim = f"{limit:.2f}x" if unit == "x" else f"{num(limit)} {unit}"
        return f"{sym} {lim}", status

    def section(self, title):
        self.lines.append((title, None, None, None, None, None, None))


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


def write_rows(rep, p):
    """The enabled-write rows; @p prefixes the keys ("" or "icount_")."""
    wall = not p
    for n in SIZES:
        r = paired(rep, f"{p}write_ftrace_{n}", f"{p}write_raw_{n}")
        goal, res = ("", "info")
        if n == 32 and not wall:
            goal, res = rep.goal("writev() 32 B, ftrace / trace_marker_raw 36 B "
                                 "(instructions)", "writev 32 B\\n/ marker_raw",
                                 r, "<=", 1.55)
        rep.line(f"  ftrace attached, {n} B payload", f"{p}write_ftrace_{n}",
                 rtext(r, "of raw"), goal, res, wall)
        r1 = paired(rep, f"{p}write1_ftrace_{n}", f"{p}write_raw_{n}")
        goal, res = ("", "info")
        if n == 32 and not wall:
            goal, res = rep.goal("write() 32 B, ftrace / trace_marker_raw 36 B "
                                 "(instructions)", "write() 32 B\\n/ marker_raw",
                                 r1, "<=", 1.20)
        rep.line("  same with write(), index + payload", f"{p}write1_ftrace_{n}",
                 rtext(r1, "of raw"), goal, res, wall)
        kept = " (kernel keeps 1 KiB)" if n + 4 > 1024 else ""
        rep.line(f"  trace_marker_raw, {n + 4} B{kept}", f"{p}write_raw_{n}",
                 wall=wall)
    for name, key in (("writev", "write_nullv_32"), ("write()", "write_null1_32")):
        r = ratio(rep.med(p + key), rep.med(f"{p}write_raw_32"))
        rep.line(f"  VFS floor: {name} of 36 B to /dev/null", p + key,
                 rtext(r, "of raw"), "", "info", wall)
    for n in SIZES:
        r = ratio(rep.med(f"{p}write_perf_{n}"), rep.med(f"{p}write_raw_{n}"))
        rep.line(f"  perf attached (mmap ring, drained), {n} B",
                 f"{p}write_perf_{n}", rtext(r, "of raw"), "", "info", wall)


def fanout_rows(rep, p):
    wall = not p
    per = {}
    for n in FANOUT:
        t = rep.med(f"{p}fanout_enable_{n}")
        per[n] = t / n if t is not None else None
        cmp = f"{per[n]:.1f} \u00b5s/process" if per[n] is not None else ""
        goal, res = "", "info"
        if n == 1000:
            r = ratio(per[1000], per[10])
            if not wall:
                goal, res = rep.goal("fan-out: per-process cost N=1000 / N=10 "
                                     "(instructions)", "fan-out\\n1000 / 10",
                                     r, "<=", 1.5)
            cmp += ", " + rtext(r, "of N=10")
        rep.line(f"  N = {n}", f"{p}fanout_enable_{n}", cmp, goal, res, wall)
    r = paired(rep, f"{p}fanout_crowd", f"{p}fanout_alone")
    rep.line("  1 process, alone", f"{p}fanout_alone", wall=wall)
    goal, res = "", "info"
    if not wall:
        goal, res = rep.goal("fan-out: one process's event beside 10 processes x "
                             "1000 enablers of another / alone (instructions)",
                             "fan-out\\nother events", r, "<=", 1.10)
    rep.line("  1 process, beside 10 x 1000 other enablers", f"{p}fanout_crowd",
             rtext(r, "of alone"), goal, res, wall)


def reg_rows(rep, p):
    wall = not p
    for kind, what, short in (("distinct", "distinct events on one fd", "reg distinct"),
                              ("sameevent", "one event at distinct addresses",
                               "reg same ev.")):
        r = paired(rep, f"{p}reg_{kind}_10000", f"{p}reg_{kind}_100")
        rep.line(f"  100th, {what}", f"{p}reg_{kind}_100", wall=wall)
        goal, res = "", "info"
        if not wall:
            goal, res = rep.goal(f"registration 10,000th / 100th, {what} "
                                 "(instructions)", f"{short}\\n10k / 100",
                                 r, "<=", 2.0)
        rep.line(f"  10,000th, {what}", f"{p}reg_{kind}_10000",
                 rtext(r, "of 100th"), goal, res, wall)


def fork_rows(rep, p):
    wall = not p
    r = paired(rep, f"{p}fork_1000", f"{p}fork_0")
    rep.line("  0 enablers", f"{p}fork_0", wall=wall)
    goal, res = "", "info"
    if not wall:
        goal, res = rep.goal("fork() with 1000 enablers / without (instructions)",
                             "fork 1000\\n/ 0", r, "<=", 2.0)
    rep.line("  1000 enablers", f"{p}fork_1000", rtext(r, "of none"), goal, res,
             wall)


def build(rep, prof_result):
    icount = any(k.startswith("icount_") for k in rep.stats)
    r = rep.med("tput_ctl_1cpu")
    if r:
        rep.ctl_rate, rep.ctl_ns = r, 1e9 / r

    rep.section("1. Enabled write: writev(index + payload) vs write() to trace_marker_raw")
    write_rows(rep, "")
    if icount:
        rep.section("1i. The same, instruction-counted (1 ns = 1 instruction)")
        write_rows(rep, "icount_")

    rep.section("2. Disabled path: test the enable bit and skip, per iteration")
    chk, emp = rep.med("disabled_check"), rep.med("disabled_empty")
    diff = f"+{chk - emp:.2f} ns vs empty" if None not in (chk, emp) else ""
    rep.line("  bit test + skip", "disabled_check", diff, "", "info", True)
    rep.line("  empty loop", "disabled_empty", wall=True)

    rep.section("3. Fan-out: write(\"1\") to the event's enable file, N processes registered")
    fanout_rows(rep, "")
    if icount:
        rep.section("3i. The same, instruction-counted")
        fanout_rows(rep, "icount_")

    rep.section("4. Registration: one DIAG_IOCSREG (median of the 21 around it)")
    reg_rows(rep, "")
    if icount:
        rep.section("4i. The same, instruction-counted")
        reg_rows(rep, "icount_")

    rep.section("5. Write throughput, ftrace attached, 4 B payload, writers pinned")
    r = paired(rep, "tput_2cpu", "tput_1cpu")
    rc = paired(rep, "tput_ctl_2cpu", "tput_ctl_1cpu")
    rel = scaling_vs_control(rep)
    rep.line("  1 writer CPU", "tput_1cpu", wall=True)
    goal, res = rep.goal("2 writer CPUs / 1, relative to the getppid() loop's "
                         "2 CPUs / 1 in the same boot", "2 writers / 1\\nvs control",
                         rel, ">=", 0.9)
    rep.line("  2 writer CPUs", "tput_2cpu",
             rtext(r, "of 1 CPU") + (f", {rel:.2f}x of control's" if rel else ""),
             goal, res, True)
    rep.line("  control: getppid() loop, 1 CPU", "tput_ctl_1cpu", wall=True)
    rep.line("  control: getppid() loop, 2 CPUs", "tput_ctl_2cpu",
             rtext(rc, "of 1 CPU (the host's limit)"), "", "info", True)

    rep.section("6. fork() in a process with enablers (median of 100 forks)")
    fork_rows(rep, "")
    if icount:
        rep.section("6i. The same, instruction-counted")
        fork_rows(rep, "icount_")

    p = "icount_" if icount else ""
    rep.section("7. Memory: /proc/meminfo Slab delta over 10,000 registrations"
                + (" (instruction-counted boot)" if icount else ""))
    rep.line("  per event (incl. its tracefs files)", f"{p}slab_per_event", "", "",
             "info")
    rep.line("  per enabler", f"{p}slab_per_enabler", "", "", "info")

    if prof_result:
        creation_goals(rep, prof_result)

    rep.section("9. Reaping N events that one close() frees: the longest event_mutex hold,")
    rep.section("   as the longest wait of a task that reads an enable file every 0.5 ms")
    reap_rows(rep)


def reap_rows(rep):
    """Section 9: the longest wait for event_mutex while N events are reaped"""
    def share(hold, total):
        h, t = rep.med(hold), rep.med(total)
        return f"{h / 1000 / t:.0%} of its reap" if h is not None and t else ""

    for n in REAP:
        never, once = f"reap_hold_never_{n}", f"reap_hold_once_{n}"
        r = paired(rep, once, never)
        rep.line(f"  N = {n:,}, never enabled", never,
                 share(never, f"reap_total_never_{n}"), "", "info")
        goal, res = rep.goal(f"reap of {n:,} events: longest event_mutex hold, "
                             "once enabled / never enabled",
                             f"reap {n // 1000}k\\nonce / never", r, "<=", 2.0,
                             skipped=once in rep.skips or never in rep.skips)
        rep.line(f"  N = {n:,}, once enabled through ftrace", once,
                 rtext(r, "of never") + ", " + share(once, f"reap_total_once_{n}"),
                 goal, res)
    for n in REAP:
        never, once = f"reap_total_never_{n}", f"reap_total_once_{n}"
        rep.line(f"  whole reap, N = {n:,}, never enabled", never, "", "", "info")
        rep.line(f"  whole reap, N = {n:,}, once enabled", once,
                 rtext(paired(rep, once, never), "of never"), "", "info")
    rep.line("  prober: one read of the enable file", "reap_probe_cost", "", "", "info")
    rep.line("  prober: longest read with nothing reaped (0.5 s)", "reap_idle_max", "",
             "", "info")


def scaling_vs_control(rep):
    """Per repetition: (2 writers / 1) / (2 getppid() loops / 1)"""
    keys = ("tput_2cpu", "tput_1cpu", "tput_ctl_2cpu", "tput_ctl_1cpu")
    ss = [rep.get(k) for k in keys]
    if not all(ss) or len({len(s["values"]) for s in ss}) != 1:
        return None
    v = [s["values"] for s in ss]
    return statistics.median((a / b) / (c / d) for a, b, c, d in zip(*v)
                             if b and c and d)


def creation_goals(rep, pr):
    """The two goals on creating an event, from the profiles"""
    reg, mem = pr.get("reg"), pr.get("regmem")
    rep.section("8. Creating an event: the 100th new event on one fd, profiling kernel"
                " (section B below)")
    if not reg or not mem:
        rep.text("  no profile", "n/a", "", "", "NO DATA")
        return
    # The split: from the profile that traces only our ioctl and the core
    # functions it calls, which leaves no hook below them to subtract
    split = pr.get("regsplit", reg)
    core = sum(split["sum"]["core"].values())
    ours = split["sum"]["own"]
    core_b = sum(v for k, v in mem["mem"]["owner"].items() if k != "user_events")
    ours_b = mem["mem"]["owner"].get("user_events", 0)
    rep.text("  whole ioctl, instructions", num(reg["u0"]),
             f"mainline {num(MAINLINE_CREATE_INSTR)}", "", "info")
    rep.text("  6.1 core functions user_events calls", num(core),
             "alone over mainline's total" if core + reg["outside"] >= MAINLINE_CREATE_INSTR
             else "", "", "info")
    if core + reg["outside"] >= MAINLINE_CREATE_INSTR:
        goal, res = rep.goal("creating an event: user_events' own instructions "
                             f"(half of {num(BASELINE_OURS_INSTR)} at {BASELINE})",
                             "create: ours\\ninstructions", ours, "<=",
                             BASELINE_OURS_INSTR / 2, "instr")
        rep.text("  user_events' own share (+ helpers)", num(ours),
                 f"{ours / BASELINE_OURS_INSTR:.2f}x of {BASELINE}'s", goal, res)
    else:
        goal, res = rep.goal("creating an event: instructions vs mainline",
                             "create:\\ninstructions", reg["u0"], "<=",
                             MAINLINE_CREATE_INSTR, "instr")
        rep.text("  user_events' own share (+ helpers)", num(ours), "", goal, res)
    rep.text("  slab bytes left allocated", num(mem["mem"]["total"]) + " B",
             f"mainline {num(MAINLINE_CREATE_BYTES)} B", "", "info")
    rep.text("  of which the 6.1 core's", num(core_b) + " B", "", "", "info")
    if core_b >= MAINLINE_CREATE_BYTES:
        goal, res = rep.goal("creating an event: user_events' own slab bytes "
                             f"(half of {num(BASELINE_OURS_BYTES)} at {BASELINE})",
                             "create: ours\\nbytes", ours_b, "<=",
                             BASELINE_OURS_BYTES / 2, "B")
        rep.text("  user_events' own", num(ours_b) + " B",
                 f"{ours_b / BASELINE_OURS_BYTES:.2f}x of {BASELINE}'s", goal, res)
    else:
        goal, res = rep.goal("creating an event: slab bytes vs mainline",
                             "create:\\nbytes", mem["mem"]["total"], "<=",
                             MAINLINE_CREATE_BYTES, "B")
        rep.text("  user_events' own", num(ours_b) + " B", "", goal, res)


def render(rep, notes):
    head = ("benchmark", "median", "spread", "÷ getppid", "comparison", "goal",
            "result")
    body = [ln for ln in rep.lines if ln[1] is not None]
    w = [max(len(str(x[i])) for x in body + [head]) for i in range(7)]
    out = []

    def put(cols):
        out.append("  ".join(str(c).rjust(w[i]) if i in (1, 3) else
                             str(c).ljust(w[i]) for i, c in enumerate(cols))
                   .rstrip())

    put(head)
    out.append("-" * (sum(w) + 12))
    for ln in rep.lines:
        if ln[1] is None:
            out.append(ln[0])
        else:
            put(ln)
    out.append("")
    npass = sum(g["status"] == "PASS" for g in rep.goals)
    nmiss = sum(g["status"] == "MISS" for g in rep.goals)
    nother = len(rep.goals) - npass - nmiss
    out.append(f"goals: {npass} PASS, {nmiss} MISS"
               + (f", {nother} not measured" if nother else "")
               + f" (of {len(rep.goals)}); spread = half the min-max range"
               " of the repetitions, relative to the median;")
    out.append("ratios of interleaved rows are medians of the per-repetition"
               " ratios; \"÷ getppid\": a wall-clock row in getppid() calls")
    out.append("of the same boot (the control row), so that two boots compare;"
               " rows \"Ni.\" are exact instruction counts")
    for n in notes:
        if n.startswith(("kernel", "reps")):
            out.append(n)
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------
# Section B: where the instructions and the bytes go (profiles)
# ---------------------------------------------------------------------

PROFILES = ("reg", "regmem", "regsplit", "same", "samemem", "writev",
            "write1", "raw", "fork")


def run_profiles(rep, outdir):
    """Parses the traces of the profiling boot; None when there are none."""
    d = f"{outdir}/prof"
    if not os.path.exists(f"{d}/prof-cal.txt"):
        return None
    ours = open(f"{d}/filter-ours.txt", encoding="utf-8").read().split()
    core = open(f"{d}/core.txt", encoding="utf-8").read().split()
    classes = prof.Classes(ours, core)
    traces = {}
    for name in ("cal",) + PROFILES:
        path = f"{d}/prof-{name}.txt"
        if os.path.exists(path):
            traces[name] = prof.parse(path)
    E = prof.entry_cost([traces[n][0] for n in traces if not n.endswith("mem")])
    res = {"E": E}
    # The hooks' cost from the calibration's fixed operation: the split
    # profile's own registrations cost one of two amounts, alternately
    # (the core's slab pages), and its few calls cannot average that out
    H_cal = None
    cal0, cal1 = rep.med("prof_cal_u0"), rep.med("prof_cal_u1")
    if "cal" in traces and cal0 is not None and cal1 is not None:
        H_cal = prof.hook_cost(traces["cal"][0], cal0, cal1)
        res["H_cal"] = H_cal
    for name in PROFILES:
        if name not in traces:
            rep.missing.append(f"prof-{name}.txt")
            continue
        iters, frees = traces[name]
        u0, u1 = rep.med(f"prof_{name}_u0"), rep.med(f"prof_{name}_u1")
        if u0 is None or u1 is None or not iters:
            continue
        H = prof.hook_cost(iters, u0, u1)
        if name == "regsplit" and H_cal:
            H = H_cal
        s = prof.summarize(iters, E, H, classes)
        r = {"u0": u0, "u1": u1, "H": H, "sum": s, "outside": u0 - s["ours"]}
        if name.endswith("mem"):
            r["mem"] = prof.memory(iters, frees, classes)
        res[name] = r
    return res


def breakdown(rep, pr):
    """Section B as text lines"""
    out = []

    def put(label, value, note=""):
        out.append(f"  {label:<58} {value:>9}  {note}".rstrip())

    def ours_lines(r, top=6, indent="    "):
        s = r["sum"]
        if s["self"] >= 0:
            put(f"{indent}user_events' own code", num(s["self"]))
        else:
            # many traced calls in a loop: the average hook cost H does
            # not fit them, and subtracting it leaves nonsense
            put(f"{indent}user_events' own code", "n/a",
                "(too many traced calls for the hook cost estimate)")
        funcs = sorted(s["funcs"].items(), key=lambda kv: -kv[1][1])
        for name, (calls, v) in funcs[:top]:
            if v >= 1:
                put(f"{indent}  {name}" + (f" ({calls:.0f} calls)" if calls > 1 else ""),
                    num(v))
        for g, v in sorted(s["helpers"].items(), key=lambda kv: -kv[1]):
            if abs(v) >= 1:
                put(f"{indent}{g} (called by user_events)", num(v))

    def core_lines(r, indent="    "):
        s = r["sum"]
        for name, v in sorted(s["core"].items(), key=lambda kv: -kv[1]):
            put(f"{indent}6.1 core: {name}", num(v))
            for path, (calls, pv) in sorted(s["core_tree"].items()):
                parts = path.split(" > ")
                if parts[0] != name or len(parts) == 1 or pv < 1:
                    continue
                c = f" ({calls:.0f} calls)" if calls > 1 else ""
                put(f"{indent}{'  ' * (len(parts) - 1)}{parts[-1]}{c}", num(pv))

    out.append("B. Where the instructions and the bytes go: function_graph on the")
    out.append("   profiling kernel in the instruction-counted guest (median of"
               f" {pr['reg']['sum']['iterations'] if 'reg' in pr else '?'} runs each;"
               f" per traced call E = {pr['E']:.0f},")
    out.append("   H = its cost to the caller, subtracted; see harness/bench/graphprof.py)")
    if "reg" in pr:
        r = pr["reg"]
        out.append("")
        put("registration of a new event (100th on its fd)", num(r["u0"]),
            "instructions")
        put("  syscall, ioctl dispatch (outside user_events)", num(r["outside"]))
        ours_lines(r)
        core_lines(r)
    if "regmem" in pr:
        m = pr["regmem"]["mem"]
        out.append("")
        put("memory left allocated by that registration", num(m["total"]), "bytes")
        sites = sorted(m["site"].items(), key=lambda kv: (kv[0][0] != "user_events",
                                                           kv[0][0], -kv[1]))
        for owner in dict.fromkeys(k[0] for k, _ in sites):
            tot = m["owner"].get(owner, 0)
            who = "user_events" if owner == "user_events" else f"6.1 core: {owner}"
            put(f"  {who}", num(tot))
            for (o, site, cache), b in sites:
                if o == owner and b:
                    put(f"    {cache} from {site}()", num(b))
    if "same" in pr:
        r = pr["same"]
        out.append("")
        put("registration of an existing event at a new address", num(r["u0"]),
            "instructions")
        put("  syscall, ioctl dispatch (outside user_events)", num(r["outside"]))
        ours_lines(r, top=4)
        core_lines(r)
        if "samemem" in pr:
            put("  memory left allocated (the enabler)",
                num(pr["samemem"]["mem"]["total"]), "bytes")
    for name, what in (("writev", "writev() of index + 32 B, ftrace attached"),
                       ("write1", "write() of index + 32 B, ftrace attached")):
        if name not in pr:
            continue
        r = pr[name]
        out.append("")
        put(what, num(r["u0"]), "instructions")
        put("  syscall, VFS (outside user_events)", num(r["outside"]))
        ours_lines(r, top=5)
        core_lines(r)
    if "raw" in pr:
        r = pr["raw"]
        null1 = rep.med("icount_write_null1_32")
        out.append("")
        put("write() of 36 B to trace_marker_raw", num(r["u0"]), "instructions")
        if null1:
            put("  syscall, VFS (write() of 36 B to /dev/null, section 1i)", num(null1))
            put("  tracing_mark_raw_write() and below (not hookable:",
                num(r["u0"] - null1))
            out.append("    kernel/trace/trace.c, used by the tracer itself)")
    if "fork" in pr:
        r = pr["fork"]
        out.append("")
        put("fork() of a process with 1000 enablers", num(r["u0"]), "instructions")
        put("  outside user_events", num(r["outside"]))
        put("  user_events (per enabler: "
            f"{r['sum']['ours'] / 1000:.0f})", num(r["sum"]["ours"]))
        ours_lines(r, indent="    ")
    return out


def why_missed(rep, pr):
    """For each missed goal, a paragraph on why, from this run's numbers"""
    out = []
    missed = {g["name"] for g in rep.goals if g["status"] == "MISS"}
    raw, null1 = rep.med("icount_write_raw_32"), rep.med("icount_write_null1_32")
    for name, key, null, prof_name, limit in (
            ("writev()", "icount_write_ftrace_32", "icount_write_nullv_32", "writev", 1.55),
            ("write()", "icount_write1_ftrace_32", "icount_write_null1_32", "write1", 1.20)):
        if not any(n.startswith(name + " 32 B") for n in missed):
            continue
        tot, vfs = rep.med(key), rep.med(null)
        if None in (tot, vfs, raw, null1):
            continue
        allowed = limit * raw
        text = (f"{name} of index + 32 B: {num(tot)} instructions, {tot / raw:.2f}x of "
                f"trace_marker_raw's {num(raw)}; the goal allows {num(allowed)}. "
                f"The same {name} to /dev/null, which records nothing, costs "
                f"{num(vfs)}: that leaves {num(allowed - vfs)} for user_events and "
                f"the trace event layer, which take {num(tot - vfs)}, where "
                f"trace_marker_raw's own work is {num(raw - null1)}.")
        r = (pr or {}).get(prof_name)
        if r:
            s_ = r["sum"]
            core = sum(s_["core"].values())
            text += (f" Of them (profiling kernel): user_events' own code "
                     f"{num(s_['self'])} (with trace_event_buffer_commit(), which "
                     f"cannot be traced), the 6.1 trace event core "
                     f"{num(core)}, copies and other helpers "
                     f"{num(sum(s_['helpers'].values()))}.")
        out.append(text)
    if any(n.startswith("fork()") for n in missed):
        f0, f1 = rep.med("icount_fork_0"), rep.med("icount_fork_1000")
        if None not in (f0, f1):
            f0, f1 = f0 * 1000, f1 * 1000
            text = (f"fork() with 1000 enablers: {num(f1)} instructions against "
                    f"{num(f0)} without, {(f1 - f0) / 1000:.0f} per enabler; the goal "
                    f"allows {f0 / 1000:.0f} per enabler.")
            r = (pr or {}).get("fork")
            if r:
                text += (f" user_events' code in the fork is {r['sum']['ours'] / 1000:.0f}"
                         f" per enabler (allocation "
                         f"{r['sum']['helpers'].get('allocator', 0) / 1000:.0f}); "
                         "the rest is outside it, e.g. the child's exit when it "
                         "runs before fork() returns.")
            out.append(text)
    for n in REAP:
        if not any(m.startswith(f"reap of {n:,} ") for m in missed):
            continue
        h1, h0 = rep.med(f"reap_hold_once_{n}"), rep.med(f"reap_hold_never_{n}")
        idle = rep.med("reap_idle_max")
        t1, t0 = rep.med(f"reap_total_once_{n}"), rep.med(f"reap_total_never_{n}")
        if None in (h1, h0, t1, t0):
            continue
        out.append(f"Reap of {n:,} events: a reader of an enable file waited up to "
                   f"{fmt(h1, 'ms')} for event_mutex while once-enabled events were "
                   f"reaped, {fmt(h0, 'ms')} for never-enabled ones; the whole reaps "
                   f"took {t1:.1f} s and {t0:.1f} s, so one hold lasted "
                   f"{h1 / 1000 / t1:.0%} and {h0 / 1000 / t0:.0%} of them "
                   f"({1000 * t1 / n:.1f} and {1000 * t0 / n:.1f} ms per event)."
                   + (f" With nothing reaped, the longest read was {fmt(idle, 'ms')}."
                      if idle is not None else ""))
    if any(n.startswith("2 writer") for n in missed):
        rc = paired(rep, "tput_ctl_2cpu", "tput_ctl_1cpu")
        if rc:
            out.append(f"2 writers: the control loop itself scaled {rc:.2f}x on 2 "
                       "CPUs in this boot; the goal is relative to it, and a host "
                       "busy with other work moves both.")
    return out


def goal_chart(goals, width=40):
    """The goals as text bars: measured / allowed, 1.0 at the marker"""
    out = []
    lw = max((len(g["label"].replace("\\n", " ")) for g in goals), default=10)
    for g in goals:
        v, lim = g["value"], g["limit"]
        if v is None:
            why = "skipped" if g["status"] == "SKIP" else "no data"
            out.append(f"{g['label'].replace(chr(92) + 'n', ' '):<{lw}}  {why}")
            continue
        q = v / lim if g["op"] == "<=" else (lim / v if v else 0)
        n = min(int(round(q * width / 2)), width + 8)
        bar = "#" * n
        bar = bar[:width // 2] + "|" + bar[width // 2:] if n >= width // 2 else \
            bar + " " * (width // 2 - n) + "|"
        out.append(f"{g['label'].replace(chr(92) + 'n', ' '):<{lw}}  {bar:<{width + 10}}"
                   f"{q:5.2f}  {g['status']}")
    return out


def readme(table, brk, goals, notes, why):
    """The Performance section of docs/results.md"""
    kernel = next((n[len("kernel "):] for n in notes if n.startswith("kernel ")), "?")
    # The kernel file measured, by content: "git log --find-object=BLOB"
    # names the commits that have it, wherever the run happened
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "kernel", "trace", "trace_events_user.c")
    try:
        rev = subprocess.run(["git", "hash-object", src], capture_output=True,
                             text=True, check=False).stdout.strip()[:12] or "?"
    except OSError:
        rev = "?"
    day = datetime.date.today().isoformat()
    reps = next((n.split()[1].rstrip(",") for n in notes if n.startswith("reps ")), "?")
    chart = goal_chart(goals)
    whys = []
    for w in why:
        whys += textwrap.wrap(w, 80) + [""]
    lines = [BEGIN, "",
             "`make bench` builds the release kernel and boots it three times to run",
             "`harness/bench/ue_bench.c`; the results land in `build/bench/`: `table.txt`,",
             "`results.json` (every repetition, the goals), `bench.png`, and this section,",
             "which it writes into docs/results.md between its markers (`UE_BENCH_README=0`",
             "leaves that file alone).  The boots:",
             "",
             "1. two vCPUs, wall-clock: every section.  QEMU TCG on a shared host is",
             "   noisy, so each wall-clock row is also given in units of the same boot's",
             "   control row (a `getppid()` loop: \"÷ getppid\"), which compares across",
             "   boots; the 2-writer scaling goal is judged against the control's own",
             "   scaling in the same run.",
             "2. instruction-counted (`-icount shift=0`, one vCPU: 1 ns of guest time is",
             "   one guest instruction): writes, fan-out, registration and fork again,",
             "   exact whatever the host load (rows \"Ni.\"); they carry those goals.",
             "3. instruction-counted on the profiling kernel (`build/obj-prof`: the",
             "   release kernel with function entry hooks in user_events and in the",
             "   trace event core, which `kernel/trace/Makefile` builds without): ftrace's",
             "   `function_graph` then counts the instructions of every function of ours",
             "   and of the core functions we call, and the `kmem` events show which",
             "   allocations stay (section B).  Each traced call adds hooks whose cost",
             "   is subtracted as an average, which moves a few hundred instructions",
             "   between functions from one build to the next: the split of section 8",
             "   comes from a profile that traces only our ioctl and the core functions",
             "   it calls (three calls instead of a hundred), with the hooks' cost of",
             "   the calibration profile, per registration.",
             "",
             "Section 9 closes one fd that holds the last reference of N events, and",
             "times from another vCPU a read of an enable file (which takes",
             "`event_mutex`) every 0.5 ms until the events are gone: the longest read is",
             "the longest hold, within a probe interval.  A row whose repetitions are",
             "projected (from N = 1,000) to take over `-c` seconds (600) is skipped; its",
             "line gives the projected time of one reap.",
             "",
             "`UE_BENCH_ARGS=-r,7,-t,300,write,fork` picks repetitions, slice length (ms)",
             "and sections of boot 1; `UE_BENCH_BOOTS=1` skips boots 2 and 3, and",
             "`UE_BENCH_BOOTS=2` runs only the exact rows (a few minutes; no chart, no",
             f"update of this section).  Each wall-clock row is the median of {reps} interleaved",
             "repetitions.",
             "",
             f"This run: kernel {kernel} with kernel/trace/trace_events_user.c of blob",
             f"{rev} (`git log --find-object={rev}`), {day}.",
             "",
             "```", *table.rstrip("\n").split("\n"), "```",
             "",
             "Goals, measured / allowed (`|` = the limit; scaling goals inverted):",
             "",
             "```", *chart, "```",
             "",
             *(["Goals missed, and why (numbers of this run):", ""] + whys if whys else []),
             "```", *brk, "```",
             "", END]
    return "\n".join(lines) + "\n"


def replace_readme(section_path, readme_path):
    sec = open(section_path, encoding="utf-8").read()
    text = open(readme_path, encoding="utf-8").read()
    a, b = text.find(BEGIN), text.find(END)
    if a < 0 or b < a:
        return 1
    new = text[:a] + sec.rstrip("\n") + text[b + len(END):]
    if new != text:
        tmp = readme_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(tmp, readme_path)
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--readme":
        return replace_readme(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows, skips, notes, errors = load(sys.argv[1])
    outdir = sys.argv[2]
    rep = Report(rows, skips)
    pr = run_profiles(rep, outdir)
    build(rep, pr)
    table = render(rep, notes)
    brk = breakdown(rep, pr) if pr else []
    why = why_missed(rep, pr)
    full = table + ("\n" + "\n".join(brk) + "\n" if brk else "")
    full += "".join("\n" + "\n".join(textwrap.wrap(w, 100)) + "\n" for w in why)
    with open(f"{outdir}/table.txt", "w", encoding="utf-8") as f:
        f.write(full)
    sys.stdout.write(full)
    with open(f"{outdir}/readme.md", "w", encoding="utf-8") as f:
        f.write(readme(table, brk, rep.goals, notes, why))

    with open(f"{outdir}/results.json", "w", encoding="utf-8") as f:
        json.dump({"notes": notes, "errors": errors, "rows": rep.stats,
                   "goals": rep.goals,
                   "profiles": prof.jsonable(pr or {})},
                  f, indent=1, sort_keys=True, default=str)
        f.write("\n")

    p = "icount_" if any(k.startswith("icount_") for k in rep.stats) else ""
    with open(f"{outdir}/write.dat", "w", encoding="utf-8") as f:
        f.write("# payload ftrace_ns raw_ns perf_ns ftrace_write1_ns\n")
        for n in SIZES:
            vals = [rep.med(f"{p}write{k}_{n}")
                    for k in ("_ftrace", "_raw", "_perf", "1_ftrace")]
            f.write(f"{n} " + " ".join("NaN" if v is None else f"{v:.1f}"
                                       for v in vals) + "\n")
    with open(f"{outdir}/goals.dat", "w", encoding="utf-8") as f:
        f.write("# label measured limit pass(1/0); >= goals are inverted\n")
        for g in rep.goals:
            v, lim = g["value"], g["limit"]
            if g["op"] == ">=" and v:
                v, lim = 1 / v, 1 / lim
            f.write(f"\"{g['label']}\" {'NaN' if v is None else f'{v:.6g}'} "
                    f"{lim:.6g} {int(g['status'] == 'PASS')}\n")

    for e in errors:
        print(f"ERROR from the guest: {e}", file=sys.stderr)
    if rep.missing:
        print(f"missing rows: {' '.join(rep.missing)}", file=sys.stderr)
    return 1 if errors or rep.missing else 0


if __name__ == "__main__":
    sys.exit(main())
