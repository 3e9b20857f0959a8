# What 0031-reg adds to kernel/trace/trace_events_user.c:
# DIAG_IOCSREG, DIAG_IOCSDEL, the enablers and their worker.
# The row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^ \* A process registers an event with DIAG_IOCSREG[\s\S]*? \* hugetlb pages, which 6\.1's gup faults in despite FOLL_NOFAULT\)\.\n \*\n
^ \*   user_event_file_info\.lock \(per fd\): the fd's array of write indexes\.\n
^ \*   user_event_mm\.lock[\s\S]*? \*     every process; what a status change walks\.\n
^#include <linux/bitmap\.h>\n
^#include <linux/highmem\.h>\n
^#include <linux/mmap_lock\.h>\n
^#include <linux/pagemap\.h>\n
^#include <linux/sched/mm\.h>\n
^/\* The worker tries a busy[^\n]*\n#define MAX_BUSY_TICKS[^\n]*\n
^#define MAX_FAULT_ATTEMPTS\t\t10\n
^ \* @enablers: The enablers of every process[\s\S]*?(?=^ \*\n)
^\tstruct list_head\t\tenablers;\n\tstruct mutex\t\t\tenablers_lock;\t/\* see above \*/\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^struct user_event_mm \{\n[\s\S]*?^\};\n\n
^/\*\n \* Enabler values:[\s\S]*?#define ENABLE_VAL_DIRTY_BIT\t\t7\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^struct user_event_enabler \{\n[\s\S]*?^\};\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^struct user_event_file_info \{\n[\s\S]*?^\};\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^static [^\n;(]*?\bmax_user_event_enablers\b(?:[^;{]*;\n|[^;{]*\{\n[\s\S]*?^\};\n)\n?
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^static [^\n;(]*?\buser_event_enabler_cache\b(?:[^;{]*;\n|[^;{]*\{\n[\s\S]*?^\};\n)\n?
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_get\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
^static void user_event_enabler_update\(struct user_event \*user\);\n
the enable bits and\x20
^\tuser_event_enabler_update\(user\);\n
^\tINIT_LIST_HEAD\(&user->enablers\);\n\tmutex_init\(&user->enablers_lock\);\n
^\tmutex_destroy\(&user->enablers_lock\);\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_put_undo\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
^/\* ---- Enablers: per-process bit lists, bit writes, faults, fork and exit ---- \*/\n[\s\S]*?(?=^/\* ---- |^#ifdef CONFIG_USER_EVENTS_KUNIT_TEST)
^/\* ---- ioctls and file operations ---- \*/\n[\s\S]*?(?=^/\* ---- |^#ifdef CONFIG_USER_EVENTS_KUNIT_TEST)
^\tstruct dentry \*edata;\n
\tuser_event_enabler_cache = KMEM_CACHE\(user_event_enabler, SLAB_ACCOUNT \| SLAB_PANIC\);\n\n
^\tedata = tracefs_create_file[\s\S]*?\t\tgoto err;\n\t\}\n\n
^err:\n\tpr_warn\("Could not register with tracefs\\n"\);\n\treturn -ENODEV;\n
# The status of an event, which the enablers follow, and what else they need first.
,\x20event\x20status\x20and\x20the\x20fan-out\x20of\x20a\n\x20\*\x20\x20\x20\x20\x20status\x20change
^#include <linux/ioctl\.h>\n
^#include <linux/tracefs\.h>\n
^#include <linux/uaccess\.h>\n
^/\* Status bits of an event, recomputed from the tracepoint's probes \*/\n#define EVENT_STATUS_FTRACE\t\tBIT\(0\)\n#define EVENT_STATUS_OTHER\t\tBIT\(7\)\n\n
^ \* @status: EVENT_STATUS_\* bits \(written under event_mutex\)\n
^\tu8\t\t\t\tstatus;\n
^/\* The status is what is attached to the tracepoint right now \*/\nstatic void user_event_update_status\(struct user_event \*user\)\n\{\n[\s\S]*?^\}\n\n
^\tuser_event_update_status\(user\);\n\n
\(then\x20\*@created,\x20if\x20given,\x20becomes\x20true\),\x20
,\x20bool\x20\*created(?=\)\n\{)
^\t\t\tif \(!ret && created\)\n\t\t\t\t\*created = true;\n
(?<=&user), NULL(?=\);)
(?<=@refcnt: References: )fds, enablers,\x20
(?<=In use by )a process,\x20
