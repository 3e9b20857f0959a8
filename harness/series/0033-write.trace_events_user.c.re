# What 0033-write adds to kernel/trace/trace_events_user.c:
# the write path: the write index, write()/writev(), the ftrace probe, the validators.
# The row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^ \* RCU-sched protects the per-fd index array and the tracepoint probes on\n \* the write path\.\n
^#include <linux/uio\.h>\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^struct user_event_validator \{\n[\s\S]*?^\};\n\n
^ \* @validators: Checks of the dynamic locations, in field order\n
^ \* @nr_validators: Number of @validators\n
validators and the\x20
^\tstruct user_event_validator\t\*validators;\n
^\tint\t\t\t\tnr_validators;\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_field_is_dynamic\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_fields_nr_validators\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_build_validators\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
 \+ user_fields_nr_validators\(desc\) \*\n\t\t\t\tsizeof\(struct user_event_validator\)
user_event_build_validators\(user,\x20
(?<=user \+ 1)\)(?=,\n)
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^struct user_event_payload \{\n[\s\S]*?^\};\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\bcopy_payload\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_validate\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?<=void \*tpdata, bool \*faulted\)\n\{\n)[\s\S]*?(?=^\}\n)
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^struct user_event_refs \{\n[\s\S]*?^\};\n\n
^ \* @refs: Registered events, NULL before the first registration\n
^\tstruct user_event_refs __rcu\t\*refs;\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_too_big\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_probes\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_fault_in\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_write_core\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_write_iter\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
^\t\.write_iter\t= user_events_write_iter,\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_refs\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_ref_find\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_ref_reserve\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_ref_add\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_event_fault_in_nowait\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_store_index\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
^\t\t\t\t   struct user_reg __user \*ureg,\n
(?<=user_events_reg_locked\(info, )ureg,\x20
^\tu32 index;\n
^\tint idx;\n
^\t/\* A new event is in no fd yet[\s\S]*?\tif \(idx < 0\)\n\t\tuser_event_get\(user\);\n\n
(?<=goto undo)_slot
\tif \(idx < 0\)\n\t\tuser_events_ref_add\(info, user\);\n\n
^undo_slot:\n[\s\S]*?(?=^undo:\n)
^\tstruct user_event_refs \*refs;\n\tu32 i;\n
^\t/\* The last reference of the file[\s\S]*?\tkfree\(refs\);\n
