#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make test-kcsan": the data-race run.  Builds the KCSAN flavour
# (build/obj-kcsan, harness/configs/kcsan.config), boots it and runs the
# kselftests that race the most, then judges like make test, except for
# KCSAN reports: a report whose racing access is in the code of the
# series fails the run, the others (6.1 core code) are listed, not
# counted (harness/scan-kcsan.sh).  Results: build/results-test-kcsan/.
#
# UE_KCSAN_STRICT=1  the strict flavour (build/obj-kcsan-strict,
#                    configs/kcsan-strict.config): the races the default
#                    one filters are reported too; results in
#                    build/results-test-kcsan-strict/
# UE_T=prog[,prog]   the kselftest programs (default: KCSAN_PROGS below)
# UE_TIMEOUT         guest time limit in seconds (default 2400)
# UE_ACCEL, UE_TIMEOUT_FACTOR: as make test
set -uo pipefail
. "$(dirname "$0")/lib.sh"
lock_build

# Concurrency in and around user_events: registration, unregistration,
# writes, fork/exec/exit against tracers, faults, the error paths
KCSAN_PROGS=stress_test,fuzz_test,model_test,fault_test,abi_test,fork_test,fault_inject_test,uffd_test,enabler_limit_test,enabler_fork_test
export UE_T=${UE_T:-$KCSAN_PROGS}

flavour=kcsan
[ "${UE_KCSAN_STRICT:-0}" = 1 ] && flavour=kcsan-strict

start=$SECONDS
"$UE_REPO/harness/deps.sh" || exit 1
"$UE_REPO/harness/assemble.sh" || exit 1
nice -n 10 "$UE_REPO/harness/kernel.sh" $flavour || exit 1
"$UE_REPO/harness/userspace.sh" $flavour || exit 1

res=$B/results-test-$flavour
mkdir -p "$B/tmp"
"$UE_REPO/harness/tests/scanner-test.sh" > "$B/tmp/scanner-test.tap"

args=("UE_SKIP_KMEMLEAK=1" "UE_T=$UE_T")
[ -n "${UE_TIMEOUT_FACTOR:-}" ] && args+=("UE_TIMEOUT_FACTOR=$UE_TIMEOUT_FACTOR")
UE_TIMEOUT=${UE_TIMEOUT:-2400} \
	"$UE_REPO/harness/vm.sh" $flavour "$UE_REPO/harness/guest/test.sh" "$res" "${args[@]}"

# KCSAN reports: ours fail, the rest are listed
dmesg=$res/dmesg.txt
[ -f "$dmesg" ] || dmesg=$res/console.log
tap=$B/tmp/kcsan.tap
: > "$tap"
if grep -q 'kcsan: enabled early' "$dmesg" && grep -qE 'kcsan: selftest: [0-9]+/[0-9]+ tests passed' "$dmesg"; then
	echo "ok - kcsan: enabled, boot self-test passed" >> "$tap"
else
	echo "not ok - kcsan: enabled, boot self-test passed (not in the log)" >> "$tap"
fi
# A file built without KCSAN_SANITIZE (kernel/trace/ has it off when the
# function tracer is built) would pass without being watched at all
obj=$(objdir $flavour)
for o in kernel/trace/trace_events_user.o kernel/fork.o; do
	# grep -c reads all of nm's output: with -q, nm could die of SIGPIPE
	# and pipefail would turn the match into a failure
	if [ "$(nm "$obj/$o" 2>/dev/null | grep -c ' U __tsan_')" -gt 0 ]; then
		echo "ok - kcsan: $o is instrumented" >> "$tap"
	else
		echo "not ok - kcsan: $o is instrumented (no __tsan_ calls in it)" >> "$tap"
	fi
done
# How much was watched (debugfs counters, saved by the guest)
if [ -f "$res/kcsan.txt" ]; then
	log "kcsan counters: $(grep -E 'setup_watchpoints|data_races|no_capacity' "$res/kcsan.txt" | tr -s ' \n' ' ')"
fi
out=$("$UE_REPO/harness/scan-kcsan.sh" "$dmesg" "$obj/vmlinux")
rc=$?
if [ -n "$out" ]; then
	printf '%s\n' "$out" | sed 's/^/# kcsan /'
fi
nours=$(grep -c '^ours:' <<< "$out")
ncore=$(grep -c '^core:' <<< "$out")
if [ $rc -eq 0 ]; then
	echo "ok - kcsan: no data race in the user_events code ($ncore distinct elsewhere, listed)" >> "$tap"
else
	echo "not ok - kcsan: $nours distinct data race(s) in the user_events code" >> "$tap"
fi

# The generic splat scan, with KCSAN's reports (judged above) allowed
allow=$B/tmp/kcsan-allow.txt
cat "$UE_REPO/harness/splat-allow.txt" > "$allow"
echo "block:BUG: KCSAN: " >> "$allow"
# fault_inject_test fails the vm_struct allocation of a fork's stack
# (VMAP_STACK, which the KASAN flavour does not have): the kernel warns
echo "block:fault_inject_te: vmalloc error: size [0-9]+, vm_struct allocation failed" >> "$allow"
UE_SPLAT_ALLOW=$allow "$UE_REPO/harness/results.sh" "$res" "$B/tmp/scanner-test.tap" "$tap"
rc=$?
log "make test-kcsan ($flavour): $((SECONDS - start)) s"
exit $rc
