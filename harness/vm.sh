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
# Exits with the guest script's exit status (RESULTS_DIR/script.rc), or 1
# when the guest did not finish (no RESULTS_DIR/done): a hang, a panic.
# While a batch guest runs, its latest "[guest] UPTIME TEXT" console line
# is shown: on a terminal updated every few seconds, else once a minute.
#
# Environment: UE_ACCEL (tcg), UE_TIMEOUT (seconds, 900), UE_MEM (2G),
# UE_SMP (2), UE_CMDLINE (extra kernel parameters), UE_PCI_ACPI (see
# pci=noacpi below), UE_QEMU_ARGS (extra QEMU arguments, word-split; e.g.
# "-icount shift=0" for instruction-counted guest time, which makes
# benchmark ratios independent of host load).
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
cmdline+=" init=$UE_REPO/harness/guest/init.sh console=ttyS0 panic=-1"
# pci=noacpi: ACPI is there for SMP (the MP table shows one CPU), but its
# _PRT IRQ routing takes minutes in the AML interpreter under KASAN + TCG.
# UE_PCI_ACPI=1 keeps it: a distribution's config (no KASAN) sets up the
# virtio devices' MSI-X through ACPI and warns without it.
[ -n "${UE_PCI_ACPI:-}" ] || cmdline+=" pci=noacpi"
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

# watch_guest LOG: show the latest "[guest] UPTIME TEXT" line of the
# console and for how long it has been the latest, until killed
watch_guest()
{
	local logf=$1 every=60 start=$SECONDS shown=$SECONDS line prev= since=$SECONDS msg
	[ -t 2 ] && every=3
	trap '[ $every = 3 ] && printf "\r\033[K" >&2; exit 0' TERM
	while sleep 1; do
		line=$(tail -c 65536 "$logf" 2>/dev/null | grep -a '^\[guest\] ' | tail -n 1 | tr -d '\r')
		line=${line#\[guest\] }
		line=${line#* }
		[ -z "$line" ] || [ "$line" = "$prev" ] || { prev=$line since=$SECONDS; }
		[ $((SECONDS - shown)) -ge $every ] || continue
		shown=$SECONDS
		msg="guest $(mmss $((SECONDS - start))): ${prev:-booting}"
		[ -z "$prev" ] || msg+=" ($(mmss $((SECONDS - since))))"
		if [ $every = 3 ]; then
			printf '\r\033[K[harness] %s' "${msg:0:$(( $(tput cols 2>/dev/null || echo 100) - 11 ))}" >&2
		else
			log "$msg"
		fi
	done
}

limit=${UE_TIMEOUT:-900}
log "booting $flavour kernel (accel ${UE_ACCEL:-tcg}, timeout ${limit}s), console: ${log#"$UE_REPO"/}"
start=$SECONDS
: > "$log"
if [ $mode = follow ]; then
	tail -n +1 -f "$log" &
else
	watch_guest "$log" &
fi
watchpid=$!
rc=0
timeout -k 10 "$limit" "${qemu[@]}" -display none -monitor none -serial "file:$log" \
	</dev/null || rc=$?
[ $mode = batch ] || sleep 0.5
kill "$watchpid" 2>/dev/null || true
wait "$watchpid" 2>/dev/null || true
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
grc=$(cat "$res/script.rc" 2>/dev/null || echo 1)
[ "$grc" = 0 ] || log "the guest script ${script##*/} exited with $grc"
exit "$grc"
