#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the guest ("make bench"): run the benchmark program and keep its
# raw output in $UE_RESULTS/raw.txt for harness/bench/report.py.
#
# Expects: $UE_BENCH (the program, built on the host), optionally
# $UE_BENCH_ARGS (e.g. "-r,5,-t,200,write,fork": commas, since the kernel
# command line carries it).

set -u

TRACEFS=/sys/kernel/tracing
bench=${UE_BENCH:?UE_BENCH not set}
args=${UE_BENCH_ARGS:-all}
raw=$UE_RESULTS/raw.txt

# A quiet, known tracing state: nothing else recording
echo 0 > "$TRACEFS/tracing_on"
echo > "$TRACEFS/trace"
echo 1 > "$TRACEFS/tracing_on"

{
	echo "# kernel $(</proc/sys/kernel/osrelease)"
	echo "# cpus $(</sys/devices/system/cpu/online)"
	echo "# buffer_size_kb $(<"$TRACEFS/buffer_size_kb")"
} > "$raw"

IFS=, read -r -a argv <<< "$args"
echo "[bench] $bench ${argv[*]}"
# stdbuf is not needed: the program flushes every line
"$bench" "${argv[@]}" 2>&1 | tee -a "$raw"
rc=${PIPESTATUS[0]}
echo "[bench] exit status $rc"
exit "$rc"
