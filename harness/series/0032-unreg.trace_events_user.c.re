# What 0032-unreg adds to kernel/trace/trace_events_user.c:
# DIAG_IOCSUNREG.
# The row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_unreg_get\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_ioctl_unreg\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_enabler_unlink_clear\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_enabler_remove\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
\tcase DIAG_IOCSUNREG:\n\t\treturn user_events_ioctl_unreg\(uarg\);\n
 && cmd != DIAG_IOCSUNREG
