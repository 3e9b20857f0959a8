# What 0034-perf adds to kernel/trace/trace_events_user.c (the perf probe):
# the row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^\#define\x20EVENT_STATUS_PERF\t\tBIT\(1\)\n
^/\*\n\x20\*\x20perf\x20submits[\s\S]*?sizeof\(struct\x20trace_entry\)\)\n\n
\n\tif\x20\(IS_ENABLED\(CONFIG_PERF_EVENTS\)\)\n\t\tmax\x20=\x20max_t\(size_t,\x20max,\x20USER_EVENT_PERF_MAX_PAYLOAD\);\n
^#ifdef\x20CONFIG_PERF_EVENTS\nstatic\x20void\x20user_event_perf\([^;]*?\)\n\{\n[\s\S]*?^#endif\n\n
\t\treturn\x20user_event_probe_reg\(user,\x20call\->class\->perf_probe,\x20call,\n\t\t\t\t\t\x20\x20\x20\x20type\x20==\x20TRACE_REG_PERF_REGISTER\);\n
^#ifdef\x20CONFIG_PERF_EVENTS\n(?!\tcase\x20TRACE_REG_PERF_REGISTER:)[\s\S]*?^#endif\n
\x20\|\|\n\t\x20\x20\x20\x20\x20\x20\x20\(\(status\x20\&\x20EVENT_STATUS_PERF\)\x20\&\&\n\t\tcount\x20>\x20USER_EVENT_PERF_MAX_PAYLOAD\)
