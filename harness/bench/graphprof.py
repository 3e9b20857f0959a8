# SPDX-License-Identifier: GPL-2.0
"""Instructions and bytes per function, from the function_graph traces
that the "prof" section of ue_bench writes in the instruction-counted
guest on the profiling kernel (imported by report.py).

There one ns of trace time is one guest instruction, so the duration of a
traced call counts the instructions it ran, plus what tracing costs:
every traced call runs a hook on entry and one on return.  Two constants
describe that cost:

  H  what one traced call adds to the operation, per profile: the
     operation's instructions traced minus untraced (rows prof_NAME_u1
     and prof_NAME_u0, medians) over the number of traced calls in it;
  E  the part of H inside the traced call's own duration: the shortest
     duration of a traced call that calls nothing traced, less MIN_CALL
     (what such a call runs at least: the patched-out call to the hook,
     one operation and the return).

A call's own instructions are then D - E - H * (traced calls below it).
The same kernel without the hooks runs the same instructions but for one
no-op per call of a function of the hooked objects.
"""
import re
import statistics

MIN_CALL = 3

LINE = re.compile(r'^\s*(\d+)\)\s+(?:[+!#*@$]\s*)?(?:([\d.]+) us\s*)?\|\s?(.*)$')
SWITCH = re.compile(r'^\s*\d+\)\s+(\S+)\s+=>\s+(\S+)')
KMEM = re.compile(r'^(kmalloc|kmem_cache_alloc|kfree|kmem_cache_free): '
                  r'call_site=(\S+) ptr=(\S+)(?: bytes_req=(\d+) bytes_alloc=(\d+))?')
# What the write of the iteration marker to trace_marker calls: not part
# of the operation (it comes before the operation's clock starts)
MARKER_CALLS = ("copy_from_user_nofault",)
# Calls that record a trace event: the kmem events of memory profiles are
# recorded inside them, they are not where the memory goes
RECORDING = ("trace_event_buffer_reserve",)


class Node:
    __slots__ = ("name", "parent", "kids", "dur", "allocs", "cost")

    def __init__(self, name, parent):
        self.name, self.parent, self.kids, self.dur = name, parent, [], None
        self.allocs, self.cost = [], None

    def calls_below(self):
        return sum(1 + k.calls_below() for k in self.kids)

    def walk(self):
        yield self
        for k in self.kids:
            yield from k.walk()


def _fname(body):
    return body.rstrip("{;").strip().rstrip("()").strip()


def parse(path):
    """Iterations ("ue_bench it K" markers) of a function_graph trace.

    Returns (iterations, frees): each iteration a dict with "roots" (call
    trees) and "allocs" (kmem allocations outside any traced call); frees
    the set of pointers freed anywhere after the first marker.  A kmem
    event counts for the operation only while the traced task runs.
    """
    iters, cur, stack, frees, task, me = [], None, [], set(), None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = SWITCH.match(line)
            if m:
                task = m.group(2)
                continue
            m = LINE.match(line)
            if not m:
                continue
            dur = float(m.group(2)) * 1000 if m.group(2) else None
            body = m.group(3).strip()
            if body.startswith("/*"):
                text = body[2:].rstrip("*/ ").strip()
                if text.startswith("ue_bench it "):
                    cur = {"roots": [], "allocs": []}
                    iters.append(cur)
                    stack = []
                    me = me or task
                    continue
                if text.startswith("ue_bench end"):
                    cur, stack = None, []
                    continue
                k = KMEM.match(text)
                if not k:
                    continue
                if k.group(1) in ("kfree", "kmem_cache_free"):
                    frees.add(k.group(3))
                elif cur is not None and task == me:
                    a = {"site": k.group(2).split("+")[0], "ptr": k.group(3),
                         "bytes": int(k.group(5) or 0), "kind": k.group(1)}
                    (stack[-1].allocs if stack else cur["allocs"]).append(a)
                continue
            if cur is None:
                continue
            if body.endswith("{"):
                n = Node(_fname(body), stack[-1] if stack else None)
                (stack[-1].kids if stack else cur["roots"]).append(n)
                stack.append(n)
            elif body.startswith("}"):
                if stack:
                    stack.pop().dur = dur
            elif body.endswith(";"):
                n = Node(_fname(body), stack[-1] if stack else None)
                n.dur = dur
                if not stack and not cur["roots"] and n.name in MARKER_CALLS:
                    continue    # the trace_marker write's own copy
                (stack[-1].kids if stack else cur["roots"]).append(n)
    return iters, frees


def ncalls(it):
    return sum(1 for r in it["roots"] for _ in r.walk())


def med(values):
    values = list(values)
    return statistics.median(values) if values else 0.0


def entry_cost(all_iters):
    """E: the shortest traced call without traced callees, less MIN_CALL."""
    leaves = [n.dur for iters in all_iters for it in iters for r in it["roots"]
              for n in r.walk() if not n.kids and n.dur]
    return min(leaves) - MIN_CALL if leaves else 0.0


def hook_cost(iters, u0, u1):
    n = med(ncalls(it) for it in iters)
    return (u1 - u0) / n if n else 0.0


class Classes:
    """Whose a function is: user_events (defined in trace_events_user.o),
    the 6.1 tracing core (the other hooked objects, and tracefs), or a
    helper called on their behalf (allocator, locks, user memory...)."""

    GROUPS = (
        ("allocator", re.compile(r'^(__?kmalloc|kmalloc|kfree|kvfree|kmem_cache_|'
                                 r'kstrdup|kstrndup|kasprintf|kvasprintf|krealloc|'
                                 r'kvmalloc|kzalloc|strndup_user|kmemdup|'
                                 r'__kmem_cache|kfree_rcu|kvfree_call_rcu)')),
        ("locks", re.compile(r'^(mutex_|_raw_spin|_raw_read|_raw_write|down_|up_|'
                             r'__mutex|rcu_|refcount_dec_and_mutex_lock)')),
        ("user memory", re.compile(r'^(_?copy_|__copy|copy_from|__get_user|'
                                   r'__put_user|check_zeroed_user|fault_in|'
                                   r'fixup_user_fault|pin_user_pages|'
                                   r'unpin_user_pages|get_user_pages|'
                                   r'__check_object_size|strncpy_from_user|'
                                   r'mmap_read|mmput|mmget|mmgrab|__mmdrop)')),
        ("credentials", re.compile(r'^(prepare_creds|override_creds|revert_creds|'
                                   r'__put_cred|abort_creds|capable|perfmon)')),
        # a reschedule point runs whatever else is runnable (workers
        # freeing memory of earlier operations, the child of a fork)
        ("other tasks, at cond_resched()", re.compile(r'^(__cond_resched|schedule)')),
    )

    def __init__(self, ours, core):
        self.ours, self.core = set(ours), set(core)

    def kind(self, name):
        if name in self.ours:
            return "ours"
        if name in self.core or name.startswith("tracefs_"):
            return "core"
        for g, rx in self.GROUPS:
            if rx.match(name):
                return g
        return "other"


def _outermost(nodes, classes):
    for n in nodes:
        if classes.kind(n.name) == "ours":
            yield n
        else:
            yield from _outermost(n.kids, classes)


def summarize(iters, E, H, classes, core_depth=3):
    """Medians over the iterations of where the instructions go.

    "ours": instructions inside the outermost user_events calls, split
    into "self" (user_events' own code), "own" (all but the core
    functions, per iteration), "core" {core function called by
    user_events: instructions} and "helpers" {group: instructions}; our
    callbacks inside a core call count as ours.  "funcs" {our function:
    (calls, own instructions)}; "core_tree" {path of core calls up to
    core_depth deep below user_events, "a > b": (calls, instructions)}.
    """
    per = []
    for it in iters:
        for r in it["roots"]:
            for n in r.walk():
                n.cost = (n.dur or 0) - E - H * n.calls_below()
        d = {"ours": 0.0, "self": 0.0, "core": {}, "helpers": {}, "funcs": {},
             "core_tree": {}}

        def add(table, key, calls, v):
            c0, v0 = table.get(key, (0, 0.0))
            table[key] = (c0 + calls, v0 + v)

        def visit(n, inside, path):
            """@inside: within a call made by user_events; @path: the core
            calls from there down to @n's caller ("" when not all core)."""
            k = classes.kind(n.name)
            if k == "ours":
                own = n.cost - sum(x.cost for x in n.kids)
                d["self"] += own
                add(d["funcs"], n.name, 1, own)
                for x in n.kids:
                    visit(x, False, "")
                return
            inner = sum(x.cost for x in _outermost(n.kids, classes))
            if not inside:
                bucket, key = ((d["core"], n.name) if k == "core"
                               else (d["helpers"], k))
                bucket[key] = bucket.get(key, 0.0) + n.cost - inner
            sub = None
            if k == "core" and path is not None:
                sub = f"{path} > {n.name}" if path else n.name
                if sub.count(">") < core_depth:
                    add(d["core_tree"], sub, 1, n.cost - inner)
            for x in n.kids:
                visit(x, True, sub)

        for o in _outermost(it["roots"], classes):
            d["ours"] += o.cost
            visit(o, False, "")
        d["own"] = d["ours"] - sum(d["core"].values())
        per.append(d)

    def mflat(key):
        names = set().union(*(p[key] for p in per)) if per else set()
        return {n: med(p[key].get(n, 0.0) for p in per) for n in names}

    def mpair(key):
        names = set().union(*(p[key] for p in per)) if per else set()
        return {n: (med(p[key].get(n, (0, 0))[0] for p in per),
                    med(p[key].get(n, (0, 0.0))[1] for p in per)) for n in names}

    return {"ours": med(p["ours"] for p in per), "self": med(p["self"] for p in per),
            "own": med(p["own"] for p in per),
            "core": mflat("core"), "helpers": mflat("helpers"),
            "funcs": mpair("funcs"), "core_tree": mpair("core_tree"),
            "calls": med(ncalls(it) for it in iters), "iterations": len(iters)}


# Slab caches of the allocations made with kmem_cache_alloc(), by the
# function that called it
CACHE_OF_SITE = (
    (re.compile(r'^__d_alloc'), "dentry"),
    (re.compile(r'^(alloc_inode|new_inode)'), "inode_cache"),
    (re.compile(r'^trace_create_new_event'), "trace_event_file"),
    (re.compile(r'^__trace_define_field|^trace_define_field'), "ftrace_event_field"),
    (re.compile(r'^(user_event_enabler_create|user_events_ioctl_common|'
                r'user_event_mm_copy)'), "user_event_enabler"),
)


def memory(iters, frees, classes):
    """Bytes an operation leaves allocated (not freed by the end of the
    trace), median over the iterations, by owner ("user_events", the core
    function user_events called, or "outside"), by slab cache (kmalloc-N
    from the allocation size, else the cache of the allocating function)
    and by (owner, allocating function, cache)."""
    per = []
    for it in iters:
        d = {"total": 0, "owner": {}, "cache": {}, "site": {}}

        def add(a, owner, caller):
            if a["ptr"] in frees:
                return
            b, site = a["bytes"], a["site"]
            # under function_graph the return address is the trampoline
            if site.startswith("return_to_handler") and caller:
                site = caller
            if a["kind"] == "kmalloc":
                cache = f"kmalloc-{b}"
            else:
                cache = next((c for rx, c in CACHE_OF_SITE if rx.match(site)),
                             "a kmem_cache")
            d["total"] += b
            for key, v in (("owner", owner), ("cache", cache),
                           ("site", (owner, site, cache))):
                d[key][v] = d[key].get(v, 0) + b

        def visit(n, owner, caller):
            k = classes.kind(n.name)
            if n.name in RECORDING:
                own, me = owner, caller
            else:
                own = ("user_events" if k == "ours" else
                       n.name if k == "core" and owner == "user_events" else owner)
                me = caller if classes.kind(n.name) == "allocator" else n.name
            for a in n.allocs:
                add(a, own, me)
            for x in n.kids:
                visit(x, own, me)

        for a in it["allocs"]:
            add(a, "outside", None)
        for r in it["roots"]:
            visit(r, "outside", None)
        per.append(d)

    def mflat(key):
        names = set().union(*(p[key] for p in per)) if per else set()
        return {n: med(p[key].get(n, 0) for p in per) for n in names}

    return {"total": med(p["total"] for p in per), "owner": mflat("owner"),
            "cache": mflat("cache"), "site": mflat("site")}


def jsonable(obj):
    """@obj with the tuple keys of memory()'s "site" joined by "/" """
    if isinstance(obj, dict):
        return {"/".join(k) if isinstance(k, tuple) else k: jsonable(v)
                for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return obj
