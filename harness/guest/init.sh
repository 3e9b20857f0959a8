#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# PID 1 of the guest: the standard mounts, then $UE_SCRIPT (or an
# interactive shell), then power off.  The root is the host's, read-only.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp TMPDIR=/tmp LANG=C.UTF-8 TERM=${TERM:-linux}

mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 tmpfs /dev/shm
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
export UE_RESULTS=/tmp/results
mkdir -p $UE_RESULTS
mount -t 9p -o trans=virtio,version=9p2000.L results $UE_RESULTS
# Where the host build puts things (same paths in the guest)
export UE_SAMPLE=$UE_B/samples/example UE_SAMPLE32=$UE_B/samples32/example
export UE_KSELFTEST=$UE_B/kselftest
cd /tmp

echo "[guest] $(uname -r), $(nproc) cpus, running ${UE_SCRIPT}"
if [ "$UE_SCRIPT" = shell ]; then
	setsid -c bash -i </dev/ttyS0 >/dev/ttyS0 2>&1
	rc=$?
else
	bash "$UE_SCRIPT"
	rc=$?
fi
echo "$rc" > $UE_RESULTS/script.rc
[ -f $UE_RESULTS/dmesg.txt ] || dmesg > $UE_RESULTS/dmesg.txt
echo "[guest] ${UE_SCRIPT##*/} exited with $rc, powering off"
touch $UE_RESULTS/done
umount $UE_RESULTS
sync
reboot -f
echo b > /proc/sysrq-trigger
