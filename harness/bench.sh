#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench": build the release kernel and the benchmark program, run
# harness/guest/bench.sh in a guest, and write under build/bench/:
#   raw.txt      what the guest program printed (one value per repetition)
#   table.txt    the table shown at the end (median, spread, goal, PASS/MISS)
#   results.json the same, machine-readable, with every repetition
#   bench.png    the chart (gnuplot)
#
# When the write section runs, a second boot repeats it in an
# instruction-counted guest (QEMU -icount shift=0, one CPU): guest time
# then advances one ns per instruction, so its rows ("icount_write_*")
# are exact and ignore host load; they carry the write goal.
#
# Environment: UE_BENCH_ARGS (guest program arguments, comma-separated,
# default "all"; e.g. "-r,5,-t,100,write,fork"), UE_BENCH_ICOUNT (0: skip
# the instruction-counted boot), UE_TIMEOUT (guest seconds, default 720).
# Exit status 1 when the run failed, not when a goal is missed: MISS rows
# are results.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lock_build

start=$SECONDS
out=$B/bench
"$UE_REPO/harness/deps.sh" bench
command -v python3 >/dev/null || die "python3 is needed for the report (apt-get install python3)"
"$UE_REPO/harness/assemble.sh"
"$UE_REPO/harness/kernel.sh" release
obj=$(objdir release)
make -s -C "$TREE" O="$obj" headers_install INSTALL_HDR_PATH="$B/headers" >"$B/headers.log" 2>&1 ||
	{ cat "$B/headers.log"; die "headers_install failed"; }

mkdir -p "$out"
rm -f "$out/raw.txt" "$out/table.txt" "$out/results.json" "$out/bench.png"
rm -rf "$out/guest-icount"
gcc -O2 -Wall -Wextra -I"$B/headers/include" -pthread \
	-o "$out/ue_bench" "$UE_REPO/harness/bench/ue_bench.c" ||
	die "building harness/bench/ue_bench.c failed"

export UE_CMDLINE=${UE_CMDLINE-quiet}
export UE_TIMEOUT=${UE_TIMEOUT:-720}
rc=0
"$UE_REPO/harness/vm.sh" release "$UE_REPO/harness/guest/bench.sh" "$out/guest" \
	"UE_BENCH=$out/ue_bench" "UE_BENCH_ARGS=${UE_BENCH_ARGS:-all}" || rc=$?
[ -f "$out/guest/raw.txt" ] || die "the guest wrote no results (build/bench/guest/console.log)"
cp "$out/guest/raw.txt" "$out/raw.txt"

# The write section again, instruction-counted: the same options, one CPU
# (icount runs the vCPUs round-robin; -smp 2 hangs at SMP bring-up)
IFS=, read -r -a bargs <<< "${UE_BENCH_ARGS:-all}"
iargs=() want=
for ((k = 0; k < ${#bargs[@]}; k++)); do
	case ${bargs[k]} in
	-r | -t) iargs+=("${bargs[k]}" "${bargs[k + 1]:-}"); k=$((k + 1)) ;;
	write | all) want=1 ;;
	esac
done
if [ -n "$want" ] && [ "${UE_BENCH_ICOUNT:-1}" != 0 ]; then
	iargs+=(write)
	UE_SMP=1 UE_QEMU_ARGS="-icount shift=0" \
		"$UE_REPO/harness/vm.sh" release "$UE_REPO/harness/guest/bench.sh" \
		"$out/guest-icount" "UE_BENCH=$out/ue_bench" \
		"UE_BENCH_ARGS=$(IFS=,; echo "${iargs[*]}")" || rc=$?
	[ -f "$out/guest-icount/raw.txt" ] ||
		die "the icount guest wrote no results (build/bench/guest-icount/console.log)"
	sed -n 's/^row write/row icount_write/p' "$out/guest-icount/raw.txt" >> "$out/raw.txt"
fi

python3 "$UE_REPO/harness/bench/report.py" "$out/raw.txt" "$out" || rc=1
gnuplot -e "dir='$out'" "$UE_REPO/harness/bench/chart.gp" 2>"$out/gnuplot.log" ||
	{ cat "$out/gnuplot.log" >&2; log "gnuplot failed"; rc=1; }
for g in "$out"/guest "$out"/guest-icount; do
	[ -d "$g" ] || continue
	if ! "$UE_REPO/harness/scan-splats.sh" "$g/dmesg.txt"; then
		log "the kernel reported problems during the benchmark (${g#"$UE_REPO"/}/dmesg.txt)"
		rc=1
	fi
	[ "$(cat "$g/script.rc" 2>/dev/null)" = 0 ] || { log "the benchmark program failed (${g#"$UE_REPO"/})"; rc=1; }
done
log "bench: table build/bench/table.txt, JSON build/bench/results.json, chart build/bench/bench.png"
log "bench took $((SECONDS - start)) s"
exit $rc
