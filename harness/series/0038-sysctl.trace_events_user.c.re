# What 0038-sysctl adds to kernel/trace/trace_events_user.c:
# the sysctls kernel.user_events_max and kernel.user_events_max_enablers.
# The row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^#include <linux/sysctl\.h>\n
sysctl and\x20
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\bset_max_user_events_sysctl\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^static [^\n;(]*?\buser_event_sysctls\b(?:[^;{]*;\n|[^;{]*\{\n[\s\S]*?^\};\n)\n?
\tregister_sysctl_init\("kernel", user_event_sysctls\);\n\n
