# What 0037-status adds to kernel/trace/trace_events_user.c (tracefs user_events_status):
# the row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^\#include\x20<linux/sort\.h>\n
^/\*\x20----\x20user_events_status\x20----\x20\*/\n[\s\S]*?(?=^/\*\x20----\x20|^#ifdef\x20CONFIG_USER_EVENTS_KUNIT_TEST)
\tif\x20\(!tracefs_create_file\("user_events_status",\x20TRACE_MODE_READ,\n\t\t\t\t\x20NULL,\x20\&init_group,\x20\&user_status_fops\)\)\x20\{\n\t\tpr_warn\("Could\x20not\x20create\x20tracefs\x20'user_events_status'\x20entry\\n"\);\n\t\ttracefs_remove\(edata\);\n\t\tgoto\x20err;\n\t\}\n\n
