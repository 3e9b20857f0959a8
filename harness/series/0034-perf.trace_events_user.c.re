# What 0034-perf adds to kernel/trace/trace_events_user.c:
# the perf probe.
# The row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^#define EVENT_STATUS_PERF\t\tBIT\(1\)\n
^/\*\n \* perf submits[\s\S]*?sizeof\(struct trace_entry\)\)\n\n
\n\tif \(IS_ENABLED\(CONFIG_PERF_EVENTS\)\)\n\t\tmax = max_t\(size_t, max, USER_EVENT_PERF_MAX_PAYLOAD\);\n
^#ifdef CONFIG_PERF_EVENTS\nstatic void user_event_perf\([^;]*?\)\n\{\n[\s\S]*?^#endif\n\n
\t\treturn user_event_probe_reg\(user, call->class->perf_probe, call,\n\t\t\t\t\t    type == TRACE_REG_PERF_REGISTER\);\n
[4] ^#ifdef CONFIG_PERF_EVENTS\n(?!\tcase TRACE_REG_PERF_REGISTER:)[\s\S]*?^#endif\n
 \|\|\n\t       \(\(status & EVENT_STATUS_PERF\) &&\n\t\tcount > USER_EVENT_PERF_MAX_PAYLOAD\)
