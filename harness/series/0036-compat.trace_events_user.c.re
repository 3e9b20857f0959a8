# What 0036-compat adds to kernel/trace/trace_events_user.c (compat_ioctl):
# the row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^\#include\x20<linux/compat\.h>\n
/\*\x20The\x2032\-bit\x20encodings\x20of\x20the\x20ioctls\x20\(the\x20number\x20encodes\x20a\x20pointer\)\x20\*/\n\#define\x20COMPAT_DIAG_IOCSREG\t_IOWR\(DIAG_IOC_MAGIC,\x200,\x20compat_uptr_t\)\n\#define\x20COMPAT_DIAG_IOCSDEL\t_IOW\(DIAG_IOC_MAGIC,\x201,\x20compat_uptr_t\)\n\#define\x20COMPAT_DIAG_IOCSUNREG\t_IOW\(DIAG_IOC_MAGIC,\x202,\x20compat_uptr_t\)\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_compat_addr\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?<=struct\x20user_reg\x20\*kreg),\x20bool\x20compat
\tif\x20\(compat\x20\&\&\x20user_events_compat_addr\(\&kreg\->enable_addr\)\)\n\t\treturn\x20\-EFAULT;\n\n
(?<=struct\x20user_reg\x20__user\x20\*ureg),\x20bool\x20compat
(?<=user_reg_get\(ureg,\x20&reg),\x20compat
\tif\x20\(compat\x20\&\&\x20user_events_compat_addr\(\&reg\.name_args\)\)\n\t\treturn\x20\-EFAULT;\n\n
(?<=struct\x20user_unreg\x20\*kreg),\x20bool\x20compat
\tif\x20\(!ret\x20\&\&\x20compat\x20\&\&\x20user_events_compat_addr\(\&kreg\->disable_addr\)\)\n\t\treturn\x20\-EFAULT;\n\n
(?<=struct\x20user_unreg\x20__user\x20\*ureg),\x20bool\x20compat
(?<=user_unreg_get\(ureg,\x20&reg),\x20compat
(?<=void\x20__user\x20\*uarg),\x20bool\x20compat
(?<=user_events_ioctl_reg\(info,\x20uarg),\x20compat
(?<=user_events_ioctl_unreg\(uarg),\x20compat
(?<=\(void\x20__user\x20\*\)uarg),\x20false
^#ifdef\x20CONFIG_COMPAT\n[\s\S]*?^#endif\n\n
^#ifdef\x20CONFIG_COMPAT\n[\s\S]*?^#endif\n
