#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot a built kernel under QEMU with the host root read-only over 9p and
# run one guest script through harness/guest/init.sh.
#
#   vm.sh [--follow|--interactive] FLAVOUR SCRIPT RESULTS_DIR [VAR=VALUE...]
#
# SCRIPT is a path in the host tree (visible at the same path in the
# guest) or "shell".  RESULTS_DIR is shared writable (mount_tag=results),
# seen as $UE_RESULTS in the guest; the serial console goes to
# RESULTS_DIR/console.log.  VAR=VALUE pairs reach the guest script's
# environment via the kernel command line (no spaces in values).
# Exit 0 only when the guest wrote RESULTS_DIR/done before powering off.
#
# Environment: UE_ACCEL (tcg), UE_TIMEOUT (seconds, 900), UE_MEM (2G),
# UE_SMP (2), UE_CMDLINE (extra kernel parameters), UE_QEMU_ARGS (extra
# QEMU arguments, word-split; e.g. "-icount shift=0" for instruction-counted
# guest time, which makes benchmark ratios independent of host load).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mode=batch
case ${1:-} in
--follow) mode=follow; shift ;;
--interactive) mode=interactive; shift ;;
esac
flavour=${1:?flavour}
script=${2:?script}
res=${3:?results dir}
shift 3

kernel=$(objdir "$flavour")/arch/x86/boot/bzImage
[ -f "$kernel" ] || die "no $kernel: build it first (make kernel)"
rm -rf "$res"
mkdir -p "$res"
res=$(cd "$res" && pwd)
log=$res/console.log

cmdline="root=root rootfstype=9p rootflags=trans=virtio,version=9p2000.L,cache=loose ro"
# pci=noacpi: ACPI is there for SMP (the MP table shows one CPU), but its
# _PRT IRQ routing takes minutes in the AML interpreter under KASAN + TCG
cmdline+=" init=$UE_REPO/harness/guest/init.sh console=ttyS0 panic=-1 pci=noacpi"
cmdline+=" UE_REPO=$UE_REPO UE_SCRIPT=$script UE_B=$B"
cmdline+=" ${UE_CMDLINE:-} $*"

qemu=(qemu-system-x86_64 -accel "${UE_ACCEL:-tcg}" -smp "${UE_SMP:-2}" -m "${UE_MEM:-2G}"
      -no-reboot -kernel "$kernel" -append "$cmdline"
      -fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
      -device virtio-9p-pci,fsdev=root,mount_tag=root
      -fsdev "local,id=results,path=$res,security_model=none"
      -device virtio-9p-pci,fsdev=results,mount_tag=results)
# shellcheck disable=SC2206 # word-split on purpose
qemu+=(${UE_QEMU_ARGS:-})

if [ $mode = interactive ]; then
	exec "${qemu[@]}" -nographic -serial mon:stdio
fi

limit=${UE_TIMEOUT:-900}
log "booting $flavour kernel (accel ${UE_ACCEL:-tcg}, timeout ${limit}s), console: ${log#"$UE_REPO"/}"
start=$SECONDS
: > "$log"
if [ $mode = follow ]; then
	tail -n +1 -f "$log" &
	tailpid=$!
fi
rc=0
timeout -k 10 "$limit" "${qemu[@]}" -display none -monitor none -serial "file:$log" \
	</dev/null || rc=$?
if [ $mode = follow ]; then
	sleep 0.5
	kill "$tailpid" 2>/dev/null || true
	wait "$tailpid" 2>/dev/null || true
fi
log "guest ran $((SECONDS - start)) s"

if [ ! -f "$res/done" ]; then
	if [ $rc -eq 124 ]; then
		why="hung: killed after ${limit}s"
	elif grep -q 'Kernel panic' "$log"; then
		why="kernel panic"
	else
		why="QEMU exited with $rc before the guest finished"
	fi
	echo "---- last 50 console lines ($log) ----" >&2
	tail -n 50 "$log" >&2
	echo "----" >&2
	log "guest run FAILED: $why"
	exit 1
fi
