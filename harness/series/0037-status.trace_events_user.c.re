# What 0037-status adds to kernel/trace/trace_events_user.c:
# tracefs user_events_status.
# The row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^#include <linux/sort\.h>\n
^/\* ---- user_events_status ---- \*/\n[\s\S]*?(?=^/\* ---- |^#ifdef CONFIG_USER_EVENTS_KUNIT_TEST)
\tif \(!tracefs_create_file\("user_events_status", TRACE_MODE_READ,\n\t\t\t\t NULL, &init_group, &user_status_fops\)\) \{\n\t\tpr_warn\("Could not create tracefs 'user_events_status' entry\\n"\);\n\t\ttracefs_remove\(edata\);\n\t\tgoto err;\n\t\}\n\n
