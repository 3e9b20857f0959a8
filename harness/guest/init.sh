#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the guest: the standard mounts, then $UE_SCRIPT (or an
# interactive shell), then power off.  The root is the host's, read-only.
#
# Every exec costs 1-2 s on the debug kernel under TCG (9p + KASAN), so
# this script uses bash builtins wherever it can.

# UE_TRACE=1 (kernel command line): trace this script with timestamps
[ "${UE_TRACE:-0}" = 1 ] && PS4='+ $(</proc/uptime) ' && set -x
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TMPDIR=/tmp LANG=C.UTF-8 TERM=${TERM:-linux}

uptime() { local u; u=$(</proc/uptime); echo "${u%% *}s"; }

# Unconditionally: the 9p root shows the host's /proc, /sys and /dev
mount -t proc proc /proc
mount -t sysfs sysfs /sys
# CONFIG_DEVTMPFS_MOUNT has mounted /dev already
[[ $(</proc/mounts) == *" /dev devtmpfs "* ]] || mount -t devtmpfs devtmpfs /dev
# A repo under /tmp or /run (e.g. a fresh clone in /tmp) would vanish
# under the tmpfs mounts: carry it over at the same path.
case $UE_REPO/ in
/tmp/*|/run/*)
	mkdir /dev/.ue-repo
	mount --bind "$UE_REPO" /dev/.ue-repo
	hidden_repo=1
	;;
esac
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
if [ -n "${hidden_repo:-}" ]; then
	mkdir -p "$UE_REPO"
	mount --move /dev/.ue-repo "$UE_REPO"
fi
export UE_RESULTS=/tmp/results
mkdir -p /dev/shm $UE_RESULTS
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
ln -sf /proc/self/fd /dev/fd	# bash process substitution
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
# Where a distribution lists its security modules (kernels with SECURITY)
[ -d /sys/kernel/security ] && mount -t securityfs securityfs /sys/kernel/security
mount -t 9p -o trans=virtio,version=9p2000.L results $UE_RESULTS
# Where the host build puts things (same paths in the guest)
export UE_SAMPLE=$UE_B/samples/example UE_SAMPLE32=$UE_B/samples32/example
export UE_KSELFTEST=$UE_B/kselftest
cd /tmp

release=$(</proc/sys/kernel/osrelease)
cpus=$(</sys/devices/system/cpu/online)
echo "[guest] $(uptime) $release, cpus $cpus, running $UE_SCRIPT"
if [ "$UE_SCRIPT" = shell ]; then
	setsid -c bash -i </dev/ttyS0 >/dev/ttyS0 2>&1
	rc=$?
else
	bash "$UE_SCRIPT"
	rc=$?
fi
echo "$rc" > $UE_RESULTS/script.rc
[ -f $UE_RESULTS/dmesg.txt ] || dmesg > $UE_RESULTS/dmesg.txt
echo "[guest] $(uptime) ${UE_SCRIPT##*/} exited with $rc, powering off"
: > $UE_RESULTS/done
umount $UE_RESULTS
reboot -f
echo b > /proc/sysrq-trigger
