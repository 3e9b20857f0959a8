# What 0030-print adds to kernel/trace/trace_events_user.c:
# the print function of the trace output.
# The row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
static enum print_line_t user_event_print_trace\(struct trace_iterator \*iter,\n\t\t\t\t\t\tint flags,\n\t\t\t\t\t\tstruct trace_event \*event\);\n\n
^\t\.trace = user_event_print_trace,\n
^/\* ---- Decoded text output ---- \*/\n[\s\S]*?(?=^/\* ---- |^#ifdef CONFIG_USER_EVENTS_KUNIT_TEST)
^#include <asm/unaligned\.h>\n\n
