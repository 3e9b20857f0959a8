# What 0031-reg adds to kernel/trace/trace_events_user.c (DIAG_IOCSREG, DIAG_IOCSDEL, the enablers and their worker):
# the row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^\x20\*\x20A\x20process\x20registers\x20an\x20event\x20with\x20DIAG_IOCSREG[\s\S]*?\x20\*\x20worker\.\n\x20\*\n
^\x20\*\x20\x20\x20user_event_file_info\.lock\x20\(per\x20fd\):\x20the\x20fd's\x20array\x20of\x20write\x20indexes\.\n
^\x20\*\x20\x20\x20user_event_mm\.lock[\s\S]*?\x20\*\x20\x20\x20\x20\x20enabler\x20hash\.\n
^\#include\x20<linux/bitmap\.h>\n
^\#include\x20<linux/highmem\.h>\n
^\#include\x20<linux/mmap_lock\.h>\n
^\#include\x20<linux/pagemap\.h>\n
^\#include\x20<linux/sched/mm\.h>\n
^/\*\x20The\x20worker\x20tries\x20a\x20busy[^\n]*\n#define\x20MAX_BUSY_TICKS[^\n]*\n
^\#define\x20MAX_FAULT_ATTEMPTS\t\t10\n
^\x20\*\x20@enablers:\x20The\x20enablers\x20of\x20every\x20process[\s\S]*?(?=^\x20\*\n)
^\tstruct\x20list_head\t\tenablers;\n\tstruct\x20mutex\t\t\tenablers_lock;\t/\*\x20see\x20above\x20\*/\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^struct\x20user_event_mm\x20\{\n[\s\S]*?^\};\n\n
^/\*\n\x20\*\x20Enabler\x20values:[\s\S]*?#define\x20ENABLE_VAL_DIRTY_BIT\t\t7\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^struct\x20user_event_enabler\x20\{\n[\s\S]*?^\};\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^struct\x20user_event_file_info\x20\{\n[\s\S]*?^\};\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^static\x20[^\n;(]*?\bmax_user_event_enablers\b(?:[^;{]*;\n|[^;{]*\{\n[\s\S]*?^\};\n)\n?
^/\*\n\x20\*\x20Every\x20enabler\x20by\x20process[\s\S]*?static\x20DEFINE_SPINLOCK\(user_event_enabler_table_lock\);\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^static\x20[^\n;(]*?\buser_event_enabler_cache\b(?:[^;{]*;\n|[^;{]*\{\n[\s\S]*?^\};\n)\n?
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_get\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
^static\x20void\x20user_event_enabler_update\(struct\x20user_event\x20\*user\);\n
the\x20enable\x20bits\x20and\x20
^\tuser_event_enabler_update\(user\);\n
^\tINIT_LIST_HEAD\(\&user\->enablers\);\n\tmutex_init\(\&user\->enablers_lock\);\n
^\tmutex_destroy\(\&user\->enablers_lock\);\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_put_undo\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
^/\*\x20----\x20Enablers:\x20per\-process\x20bit\x20lists,\x20bit\x20writes,\x20faults,\x20fork\x20and\x20exit\x20----\x20\*/\n[\s\S]*?(?=^/\*\x20----\x20|^#ifdef\x20CONFIG_USER_EVENTS_KUNIT_TEST)
^/\*\x20----\x20ioctls\x20and\x20file\x20operations\x20----\x20\*/\n[\s\S]*?(?=^/\*\x20----\x20|^#ifdef\x20CONFIG_USER_EVENTS_KUNIT_TEST)
^\tstruct\x20dentry\x20\*edata;\n
\tuser_event_enabler_cache\x20=\x20KMEM_CACHE\(user_event_enabler,\x20SLAB_ACCOUNT\x20\|\x20SLAB_PANIC\);\n\n
^\tedata\x20=\x20tracefs_create_file[\s\S]*?\t\tgoto\x20err;\n\t\}\n\n
^err:\n\tpr_warn\("Could\x20not\x20register\x20with\x20tracefs\\n"\);\n\treturn\x20\-ENODEV;\n
