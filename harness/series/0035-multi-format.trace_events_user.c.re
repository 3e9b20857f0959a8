# What 0035-multi-format adds to kernel/trace/trace_events_user.c:
# USER_EVENT_REG_MULTI_FORMAT.
# The row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
 \(or\n \* events/user_events_multi/ for multi-format events\)
 the multi-format id,
^\tUSER_EVENT_ERR_NAME_ID_LONG,\n
^\t\[USER_EVENT_ERR_NAME_ID_LONG\][^\n]*\n
^ \* @multi_id: Next id of a multi-format event \(event_mutex\)\n
^ \* @multi_class: The class of its multi-format events, with their system\n
(?<=@class: The class of its) single-format
^\tu64\t\t\tmulti_id;\n
^\tstruct trace_event_class\tmulti_class;\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_is_multi\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
user_event_is_multi\(user\) \? &user->group->multi_class :\x20
^\tsize_t\ttp;\n
, the tracepoint name when it\n \* differs \("name\.id" of a multi-format event\)
 bool multi,\n\t\t\t\t     u64 multi_id,
^\tlen->tp = 0;\n
\tif \(multi\)\n\t\tlen->tp = snprintf\(NULL, 0, "%s\.%llx", name, multi_id\) \+ 1;\n
 \+ len->tp
 u64 multi_id,
\tif \(len->tp\) \{\n\t\tsnprintf\(p, len->tp, "%s\.%llx", name, multi_id\);\n\t\tuser->tp\.name = p;\n\t\tp \+= len->tp;\n\t\}\n
\n \* -EINVAL when "name\.id" of a multi-format event is too long \(see @err\),
,\n\t\t\t  struct user_event_err \*err(?=\))
[2] ^\tbool multi = flags & USER_EVENT_REG_MULTI_FORMAT;\n
^\tu64 multi_id = 0;\n
\t/\* Every attempt uses up an id, so that ids are never reused \*/\n\tif \(multi\)\n\t\tmulti_id = group->multi_id\+\+;\n\n
(?<=user_event_strings_len\(desc, name), multi, multi_id
^\t/\* The "\.<id>" suffix[\s\S]*?\(len\.tp - len\.name\)\);\n\n
(?<=name), multi_id(?=, &len\))
 \|\| user_event_is_multi\(user\) != multi
\t\t/\* A multi-format event with other fields is another event \*/\n\t\tif \(multi\)\n\t\t\tcontinue;\n\n
\t\t\tif \(multi\)\n\t\t\t\tgroup->multi_id\+\+;\n
(?<=flags, key, out), &err
\t\t\tif \(ret == -EINVAL\)\n\t\t\t\tuser_event_log_err\(cmd, &err\);\n
 for single-format events and a new event for multi-format\n \* ones
 &&\n\t    strcmp\(system, USER_EVENTS_MULTI_SYSTEM\)
^\tuser_event_class_init\(&init_group\.multi_class, USER_EVENTS_MULTI_SYSTEM\);\n
(?<=its name is @reg_name) or "name\.id"
