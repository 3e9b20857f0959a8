# What 0036-compat adds to kernel/trace/trace_events_user.c:
# compat_ioctl.
# The row before it in patches/series removes these matches from the
# file, one Python regex a line (re.M), applied in order.
^#include <linux/compat\.h>\n
/\* The 32-bit encodings of the ioctls \(the number encodes a pointer\) \*/\n#define COMPAT_DIAG_IOCSREG\t_IOWR\(DIAG_IOC_MAGIC, 0, compat_uptr_t\)\n#define COMPAT_DIAG_IOCSDEL\t_IOW\(DIAG_IOC_MAGIC, 1, compat_uptr_t\)\n#define COMPAT_DIAG_IOCSUNREG\t_IOW\(DIAG_IOC_MAGIC, 2, compat_uptr_t\)\n\n
(?:^/\*(?:[^*]|\*(?!/))*\*/\n)?^[a-z][^(;{}]*?\buser_events_compat_addr\([^;{]*?\)\n\{\n[\s\S]*?^\}\n\n
(?<=struct user_reg \*kreg), bool compat
\tif \(compat && user_events_compat_addr\(&kreg->enable_addr\)\)\n\t\treturn -EFAULT;\n\n
(?<=struct user_reg __user \*ureg), bool compat
(?<=user_reg_get\(ureg, &reg), compat
\tif \(compat && user_events_compat_addr\(&reg\.name_args\)\)\n\t\treturn -EFAULT;\n\n
(?<=struct user_unreg \*kreg), bool compat
\tif \(!ret && compat && user_events_compat_addr\(&kreg->disable_addr\)\)\n\t\treturn -EFAULT;\n\n
(?<=struct user_unreg __user \*ureg), bool compat
(?<=user_unreg_get\(ureg, &reg), compat
(?<=void __user \*uarg), bool compat
(?<=user_events_ioctl_reg\(info, uarg), compat
(?<=user_events_ioctl_unreg\(uarg), compat
(?<=\(void __user \*\)uarg), false
^#ifdef CONFIG_COMPAT\n[\s\S]*?^#endif\n\n
^#ifdef CONFIG_COMPAT\n[\s\S]*?^#endif\n
