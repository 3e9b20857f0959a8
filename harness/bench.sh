#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make bench": build the release kernel and the benchmark program, run
# harness/guest/bench.sh in guests, and write under build/bench/:
#   raw.txt      what the guest program printed (one value per repetition)
#   table.txt    the table shown at the end (median, spread, goal, PASS/MISS)
#   results.json the same, machine-readable, with every repetition
#   bench.png    the chart (gnuplot)
#   readme.md    the "Performance" section of docs/results.md, which is
#                also replaced there between the "make bench" markers
#
# Three boots of the same kernel sources:
#  1. 2 vCPUs, wall-clock: every section; its rows are noisy (TCG on a
#     shared host) and each is also shown divided by that boot's control
#     row (a getppid() loop); it carries the 2-writer scaling goal, judged
#     against the control's own scaling in the same run, and the reap
#     goals (section 9: the longest event_mutex hold while N events are
#     deleted, once-enabled against never-enabled events of the same
#     run), which need one vCPU for the reaper and one for the prober.
#  2. instruction-counted (QEMU -icount shift=0, one CPU): guest time
#     advances one ns per instruction, so its rows ("icount_*") are exact
#     and ignore host load; they carry every other goal.
#  3. instruction-counted, on the profiling kernel: the release kernel
#     with function entry hooks in user_events and the trace event core
#     (kernel/trace/ is built without them, the tracer must not trace
#     itself), so that function_graph counts the instructions of each of
#     their functions: where the instructions and the bytes go.
#
# Environment: UE_BENCH_ARGS (guest program arguments of boot 1,
# comma-separated, default "all"; e.g. "-r,5,-t,100,write,fork"; -r/-t
# carry over to boot 2; "-c,S" skips a reap row whose repetitions are
# projected to take more than S seconds, 600 by default), UE_BENCH_BOOTS
# (the boots to run, default "1 2 3"; e.g. "2" for the exact rows alone,
# a few minutes, or "1" for the wall-clock boot alone: the table has only
# their rows, the others are not counted as missing, and there is no
# chart and no update of docs/results.md), UE_BENCH_README (0: leave
# docs/results.md alone), UE_TIMEOUT (guest seconds, default 900, and
# 2700 for boot 1, whose reaps take minutes on a kernel that reaps
# slowly).  Exit status 1 when a run failed, not when a goal is missed:
# MISS rows are results.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lock_build

start=$SECONDS
out=$B/bench
"$UE_REPO/harness/deps.sh" bench
command -v python3 >/dev/null || die "python3 is needed for the report (apt-get install python3)"
"$UE_REPO/harness/assemble.sh"
"$UE_REPO/harness/kernel.sh" release
rel=$(objdir release)
make -s -C "$TREE" O="$rel" headers_install INSTALL_HDR_PATH="$B/headers" >"$B/headers.log" 2>&1 ||
	{ cat "$B/headers.log"; die "headers_install failed"; }

mkdir -p "$out"
rm -rf "$out"/raw.txt "$out"/table.txt "$out"/results.json "$out"/bench.png \
	"$out"/readme.md "$out"/guest "$out"/guest-icount "$out"/guest-prof "$out"/prof
gcc -O2 -Wall -Wextra -Werror -I"$B/headers/include" -pthread \
	-o "$out/ue_bench" "$UE_REPO/harness/bench/ue_bench.c" ||
	die "building harness/bench/ue_bench.c failed"

# The objects of the profiling kernel that get function entry hooks
PROF_OBJS=(kernel/trace/trace_events_user.o kernel/trace/trace_events.o
	   kernel/trace/trace_output.o kernel/trace/trace_dynevent.o)

# obj-prof: the release configuration in a build directory of its own,
# with the flags kernel/trace/Makefile removes put back for PROF_OBJS.
# Not a copy of obj-release: objtool's build records the absolute path of
# its directory, so a copy rebuilds objtool and with it every object.
# The first build compiles everything (ccache hits the release's objects),
# later ones what changed.
build_prof()
{
	local prof o flags=()

	prof=$(objdir prof)
	mkdir -p "$prof"
	cmp -s "$rel/.config" "$prof/.config" || cp "$rel/.config" "$prof/.config"
	for o in "${PROF_OBJS[@]}"; do
		flags+=("CFLAGS_$(basename "$o")=\$(CC_FLAGS_FTRACE)")
	done
	log "building the profiling kernel (O=${prof#"$UE_REPO"/}, -j$JOBS)"
	make -s -C "$TREE" O="$prof" CC="$KCC" -j"$JOBS" "${flags[@]}" bzImage \
		>"$prof/build.log" 2>&1 ||
		{ tail -30 "$prof/build.log" >&2; die "profiling kernel build failed (${prof#"$UE_REPO"/}/build.log)"; }
}

# The functions function_graph traces in boot 3, one name a line: ours
# (filter-ours.txt), and with them everything ours calls, the trace event
# core's functions and the trace_marker_raw write (filter-all.txt).  Names
# that are not traceable (data, notrace) are skipped by the guest.
prof_filters()
{
	local prof=$1 dir=$2 o

	mkdir -p "$dir"
	nm --defined-only "$prof/kernel/trace/trace_events_user.o" |
		awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u > "$dir/filter-ours.txt"
	for o in "${PROF_OBJS[@]:1}"; do
		nm --defined-only "$prof/$o" | awk '$2 ~ /^[tT]$/ { print $3 }'
	done | sort -u > "$dir/core.txt"
	nm -u "$prof/kernel/trace/trace_events_user.o" | awk '{ print $2 }' |
		sort -u > "$dir/calls.txt"
	{
		cat "$dir/filter-ours.txt" "$dir/core.txt" "$dir/calls.txt"
		printf '%s\n' tracing_mark_raw_write
	} | sort -u > "$dir/filter-all.txt"
	# The split of a registration between ours and the core: only our
	# ioctl and the core functions it calls directly are traced, so that
	# the hooks of the hundred calls below them are not subtracted
	{
		printf '%s\n' user_events_ioctl
		comm -12 "$dir/core.txt" "$dir/calls.txt"
	} | sort -u > "$dir/filter-split.txt"
}

export UE_CMDLINE=${UE_CMDLINE-quiet}
timeout1=${UE_TIMEOUT:-2700}
export UE_TIMEOUT=${UE_TIMEOUT:-900}
rc=0
guest()	# NAME FLAVOUR ARGS [VAR=VALUE...]: one boot, its raw rows with PREFIX
{
	local name=$1 flavour=$2 args=$3
	shift 3
	"$UE_REPO/harness/vm.sh" "$flavour" "$UE_REPO/harness/guest/bench.sh" \
		"$out/$name" "UE_BENCH=$out/ue_bench" "UE_BENCH_ARGS=$args" "$@" || rc=$?
	[ -f "$out/$name/raw.txt" ] ||
		die "the $name boot wrote no results (build/bench/$name/console.log)"
}

boots=${UE_BENCH_BOOTS:-1 2 3}
boot() { [[ " $boots " == *" $1 "* ]]; }	# boot N: whether boot N runs
complete=0
boot 1 && boot 2 && boot 3 && complete=1

: > "$out/raw.txt"
if boot 1; then
	UE_TIMEOUT=$timeout1 guest guest release "${UE_BENCH_ARGS:-all}"
	cp "$out/guest/raw.txt" "$out/raw.txt"
fi

if boot 2; then
	# -r and -t carry over; the sections whose rows can be exact
	IFS=, read -r -a bargs <<< "${UE_BENCH_ARGS:-all}"
	iargs=()
	for ((k = 0; k < ${#bargs[@]}; k++)); do
		case ${bargs[k]} in
		-r | -t) iargs+=("${bargs[k]}" "${bargs[k + 1]:-}"); k=$((k + 1)) ;;
		esac
	done
	iargs+=(write fanout reg fork)
	# icount runs the vCPUs round-robin; -smp 2 hangs at SMP bring-up
	UE_SMP=1 UE_QEMU_ARGS="-icount shift=0" \
		guest guest-icount release "$(IFS=,; echo "${iargs[*]}")"
	sed -n 's/^row /row icount_/p' "$out/guest-icount/raw.txt" >> "$out/raw.txt"
fi

if boot 3; then
	build_prof
	prof_filters "$(objdir prof)" "$out/prof"
	# no_hash_pointers: the kmem events must show which allocation a
	# free releases
	UE_SMP=1 UE_QEMU_ARGS="-icount shift=0" UE_CMDLINE="$UE_CMDLINE no_hash_pointers" \
		guest guest-prof prof "-d,$out/prof,prof"
	grep -E '^(row prof_|# profile )' "$out/guest-prof/raw.txt" >> "$out/raw.txt"
	cp "$out"/guest-prof/prof-*.txt "$out/prof/"
fi

if [ $complete = 1 ]; then
	python3 "$UE_REPO/harness/bench/report.py" "$out/raw.txt" "$out" || rc=1
	gnuplot -e "dir='$out'" "$UE_REPO/harness/bench/chart.gp" 2>"$out/gnuplot.log" ||
		{ cat "$out/gnuplot.log" >&2; log "gnuplot failed"; rc=1; }
else
	# The rows of the boots left out are missing: only errors count
	python3 "$UE_REPO/harness/bench/report.py" "$out/raw.txt" "$out" 2>"$out/report.log" ||
		! grep -v '^missing rows:' "$out/report.log" >&2 || rc=1
fi
for g in "$out"/guest "$out"/guest-icount "$out"/guest-prof; do
	[ -d "$g" ] || continue
	if ! "$UE_REPO/harness/scan-splats.sh" "$g/dmesg.txt"; then
		log "the kernel reported problems during the benchmark (${g#"$UE_REPO"/}/dmesg.txt)"
		rc=1
	fi
	[ "$(cat "$g/script.rc" 2>/dev/null)" = 0 ] || { log "the benchmark program failed (${g#"$UE_REPO"/})"; rc=1; }
done

# The section of docs/results.md, only from a complete run
if [ $rc = 0 ] && [ "${UE_BENCH_README:-1}" != 0 ] && [ -f "$out/readme.md" ] &&
   [ $complete = 1 ]; then
	python3 "$UE_REPO/harness/bench/report.py" --readme "$out/readme.md" "$UE_REPO/docs/results.md" ||
		{ log "docs/results.md has no \"make bench\" markers: not updated"; rc=1; }
fi
log "bench: table build/bench/table.txt, JSON build/bench/results.json, chart build/bench/bench.png"
log "bench took $((SECONDS - start)) s"
exit $rc
