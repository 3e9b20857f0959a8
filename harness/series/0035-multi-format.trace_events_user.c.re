# What 0035-multi-format adds to kernel/trace/trace_events_user.c (USER_EVENT_REG_MULTI_FORMAT):
# the row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
\x20\(or\n\x20\*\x20events/user_events_multi/\x20for\x20multi\-format\x20events\)
\x20the\x20multi\-format\x20id,
^\tUSER_EVENT_ERR_NAME_ID_LONG,\n
^\t\[USER_EVENT_ERR_NAME_ID_LONG\][^\n]*\n
^\x20\*\x20@multi_id:\x20Next\x20id\x20of\x20a\x20multi\-format\x20event\x20\(event_mutex\)\n
^\x20\*\x20@multi_class:\x20The\x20class\x20of\x20its\x20multi\-format\x20events,\x20with\x20their\x20system\n
(?<=@class:\x20The\x20class\x20of\x20its)\x20single-format
^\tu64\t\t\tmulti_id;\n
^\tstruct\x20trace_event_class\tmulti_class;\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_is_multi\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
user_event_is_multi\(user\)\x20\?\x20\&user\->group\->multi_class\x20:\x20
^\tsize_t\ttp;\n
,\x20the\x20tracepoint\x20name\x20when\x20it\n\x20\*\x20differs\x20\("name\.id"\x20of\x20a\x20multi\-format\x20event\)
\x20bool\x20multi,\n\t\t\t\t\x20\x20\x20\x20\x20u64\x20multi_id,
^\tlen\->tp\x20=\x200;\n
\tif\x20\(multi\)\n\t\tlen\->tp\x20=\x20snprintf\(NULL,\x200,\x20"%s\.%llx",\x20name,\x20multi_id\)\x20\+\x201;\n
\x20\+\x20len\->tp
\x20u64\x20multi_id,
\tif\x20\(len\->tp\)\x20\{\n\t\tsnprintf\(p,\x20len\->tp,\x20"%s\.%llx",\x20name,\x20multi_id\);\n\t\tuser\->tp\.name\x20=\x20p;\n\t\tp\x20\+=\x20len\->tp;\n\t\}\n
\n\x20\*\x20\-EINVAL\x20when\x20"name\.id"\x20of\x20a\x20multi\-format\x20event\x20is\x20too\x20long\x20\(see\x20@err\),
,\n\t\t\t\x20\x20struct\x20user_event_err\x20\*err(?=\))
^\tbool\x20multi\x20=\x20flags\x20\&\x20USER_EVENT_REG_MULTI_FORMAT;\n
^\tu64\x20multi_id\x20=\x200;\n
\t/\*\x20Every\x20attempt\x20uses\x20up\x20an\x20id,\x20so\x20that\x20ids\x20are\x20never\x20reused\x20\*/\n\tif\x20\(multi\)\n\t\tmulti_id\x20=\x20group\->multi_id\+\+;\n\n
(?<=user_event_strings_len\(desc,\x20name),\x20multi,\x20multi_id
^\t/\*\x20The\x20"\.<id>"\x20suffix[\s\S]*?\(len\.tp\x20-\x20len\.name\)\);\n\n
(?<=name),\x20multi_id(?=,\x20&len\))
\x20\|\|\x20user_event_is_multi\(user\)\x20!=\x20multi
\t\t/\*\x20A\x20multi\-format\x20event\x20with\x20other\x20fields\x20is\x20another\x20event\x20\*/\n\t\tif\x20\(multi\)\n\t\t\tcontinue;\n\n
\t\t\tif\x20\(multi\)\n\t\t\t\tgroup\->multi_id\+\+;\n
(?<=flags,\x20key,\x20out),\x20&err
\t\t\tif\x20\(ret\x20==\x20\-EINVAL\)\n\t\t\t\tuser_event_log_err\(log_cmd,\x20cmd,\x20\&err\);\n
\x20for\x20single\-format\x20events\x20and\x20a\x20new\x20event\x20for\x20multi\-format\n\x20\*\x20ones
\x20\&\&\n\t\x20\x20\x20\x20strcmp\(system,\x20USER_EVENTS_MULTI_SYSTEM\)
^\tuser_event_class_init\(\&init_group\.multi_class,\x20USER_EVENTS_MULTI_SYSTEM\);\n
