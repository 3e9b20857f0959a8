# What 0030-print adds to kernel/trace/trace_events_user.c (the print function of the trace output):
# the row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
static\x20enum\x20print_line_t\x20user_event_print_trace\(struct\x20trace_iterator\x20\*iter,\n\t\t\t\t\t\tint\x20flags,\n\t\t\t\t\t\tstruct\x20trace_event\x20\*event\);\n\n
^\t\.trace\x20=\x20user_event_print_trace,\n
^/\*\x20----\x20Decoded\x20text\x20output\x20----\x20\*/\n[\s\S]*?(?=^/\*\x20----\x20|^#ifdef\x20CONFIG_USER_EVENTS_KUNIT_TEST)
