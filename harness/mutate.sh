#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make mutate": does a test fail for every broken rule?
#
# harness/mutants/mutants.txt lists mutants, each a deliberate break of one
# rule of the ABI (a limit moved by one, an errno swapped, a check or a
# reference dropped, ...) located by anchor text in the sources, with the
# kselftest programs that must kill it.  All of them are compiled into ONE
# debug kernel (harness/mutants/apply.py), each behind "ue_mutant == N",
# a kernel parameter that is writable at run time.  One boot then runs
# every program some mutant names with ue_mutant=0 (all must pass), and
# each mutant in turn: ue_mutant=N, only the programs it names, ue_mutant=0
# (harness/mutants/guest.sh).  A mutant is killed when a kselftest case
# fails, a program crashes or times out, or dmesg shows a splat while it
# runs; a guest that panics or hangs kills the mutant it was running, and
# the rest go on in a new boot.  A mutant that could leave the kernel in a
# state that fails later tests ("alone" in mutants.txt) gets a boot of its
# own, after the others.  Prints one line per mutant, "mutants: N
# killed, N survived of N" and the run time; exits 1 when a mutant
# survived or the clean run failed.
#
#   mutate.sh [all|prepare|build|kernel|run|list] [NAME|N ...]
#     all      (make mutate) prepare, build, run
#     prepare  assemble, build the userspace (holding the harness lock),
#              copy the tree and the kselftests to build/mutate/, apply
#              the mutants; a missing anchor fails here
#     build    prepare, then build the mutant kernel
#     kernel   only build the mutant kernel (after prepare)
#     run      boot the built kernel: the clean run, then each mutant (or
#              only the mutants named); the mutant kernel must be built
#     list     the mutants: number, name, tests, rule
#     judge DIR  judge the mutant results a boot left in DIR (e.g.
#              build/mutate/results/boot1) without booting: for a run
#              whose host side was interrupted
#
# Not part of make test or CI: one boot, then ~20-80 s per mutant.  Everything lives in
# build/mutate/: linux (the tree with the mutants), obj-debug (its kernel;
# build/obj-mutate links to it), kselftest, plan.txt (what the guest
# runs), results/N-NAME/ (TAP, dmesg, summary.txt), results/bootK/
# console.log and score.txt.  prepare copies build/linux and
# build/obj-debug (make test's tree and objects) there, and the build runs
# in a private mount namespace where the copies are mounted over the
# originals: the same paths, so make compiles only what the mutants change
# (and what make test has not built yet); make test's tree and objects are
# never written.  Only prepare holds the harness lock; the boots do not
# block make test.
#
# UE_MUTATE_TESTS: see MUTS below.  UE_CMDLINE (vm.sh) reaches the
# programs' environment, e.g. "UE_MODEL_STEPS=300" for model_test.
# UE_MUTATE_TIMEOUT: the hard limit of a boot is this (600 s) plus 300 s
# per mutant it has to run.
# UE_MUTATE_TIMEOUT_FACTOR: multiplies each program's kselftest "settings"
# timeout (180 s) in the boots, 2 by default: fault_inject_test takes
# 200-280 s on a loaded host and must pass the clean run, while a program
# that a mutant hangs is still given up on well before make test's factor
# of 3 would.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

M=$B/mutate
MUTS=$UE_REPO/harness/mutants/mutants.txt
# UE_MUTATE_TESTS=prog[,prog]: every mutant must be killed by these
# programs alone, whatever it names (a copy of mutants.txt with its
# "tests" lines replaced, build/mutate/mutants.txt)
if [ -n "${UE_MUTATE_TESTS:-}" ]; then
	mkdir -p "$M"
	sed "s/^tests .*/tests  $UE_MUTATE_TESTS/" "$MUTS" > "$M/mutants.txt"
	MUTS=$M/mutants.txt
fi
APPLY=$UE_REPO/harness/mutants/apply.py
step=${1:-all}
[ $# -eq 0 ] || shift

# mutants: "N<TAB>NAME<TAB>TESTS<TAB>RULE" lines
mutants() { python3 "$APPLY" --list "$MUTS"; }

prepare()
{
	local had_lock=${UE_LOCKED:-} t f excl=()

	lock_build
	"$UE_REPO/harness/deps.sh" || exit 1
	"$UE_REPO/harness/assemble.sh" || exit 1
	python3 "$APPLY" --check "$MUTS" "$TREE" || exit 1
	"$UE_REPO/harness/config.sh" debug || exit 1
	"$UE_REPO/harness/userspace.sh" debug || exit 1

	mkdir -p "$M/linux" "$M/obj-debug"
	# The mutated files are rewritten only when their mutants change, so
	# that an unchanged set of mutants rebuilds nothing
	while IFS= read -r f; do excl+=("--exclude=/$f"); done < <(python3 "$APPLY" --files "$MUTS")
	log "copying build/linux to ${M#"$UE_REPO"/}/linux"
	rsync -a --delete "${excl[@]}" "$TREE/" "$M/linux/"
	rm -rf "$M/kselftest"
	cp -a "$B/kselftest" "$M/kselftest"
	# make test's objects, where it built them; the mutated ones are
	# compiled again, in the copy
	[ -f "$B/obj-debug/.config" ] || die "no build/obj-debug/.config"
	log "copying build/obj-debug to ${M#"$UE_REPO"/}/obj-debug"
	rsync -a --delete "$B/obj-debug/" "$M/obj-debug/"
	if [ -z "$had_lock" ]; then
		flock -u 9
		exec 9>&-
		unset UE_LOCKED
	fi

	for f in $(python3 "$APPLY" "$MUTS" "$TREE" "$M/linux"); do
		log "mutants applied to $f"
	done
	# Every program a mutant names must exist
	while IFS=$'\t' read -r n name tests _; do
		for t in ${tests//,/ }; do
			grep -q ":$t\$" "$M/kselftest/kselftest-list.txt" ||
				die "mutant $n $name: no kselftest program $t"
		done
	done < <(mutants)
}

build()
{
	local start=$SECONDS warn total=1300

	[ -d "$M/linux/kernel" ] && [ -f "$M/obj-debug/.config" ] || die "nothing prepared: mutate.sh prepare first"
	[ ! -f "$M/obj-debug/.ue-objects" ] || total=$(cat "$M/obj-debug/.ue-objects")
	log "building the mutant kernel (${M#"$UE_REPO"/}/linux and obj-debug mounted at build/linux and build/obj-debug in a private mount namespace, -j$JOBS, CC=$KCC)"
	# shellcheck disable=SC2016 # expanded by the inner shell
	if ! unshare --mount --propagation private bash -c '
		set -e
		mount --bind "$1/linux" "$2"
		mount --bind "$1/obj-debug" "$3"
		make -C "$2" O="$3" CC="$4" -j"$5" bzImage' mutate "$M" "$TREE" "$B/obj-debug" \
		"$KCC" "$JOBS" 2>&1 | kbuild_progress "$M/obj-debug/build.log" "mutant kernel" "$total"; then
		grep -E 'error|Error' -A5 "$M/obj-debug/build.log" | head -60 >&2
		die "mutant kernel build failed (${M#"$UE_REPO"/}/obj-debug/build.log)"
	fi
	find "$M/obj-debug" -name '.*.o.cmd' | wc -l > "$M/obj-debug/.ue-objects"
	# A mutant that draws a warning is one to fix: it may not do what it says
	warn=$(grep -a 'trace_events_user.*warning:' "$M/obj-debug/build.log" || true)
	[ -z "$warn" ] || { printf '%s\n' "$warn" >&2; die "the mutants draw compiler warnings"; }
	ln -sfn mutate/obj-debug "$B/obj-mutate"
	log "mutant kernel ready in $((SECONDS - start)) s ($(cat "$M/obj-debug/build.log.count") objects compiled)"
}

# judge DIR: the verdict of results.sh on a mutant's results in
# DIR/summary.txt; returns 0 when everything passed
judge()
{
	local dir=$1
	UE_KSELFTEST_LIST=$M/kselftest/kselftest-list.txt \
		"$UE_REPO/harness/results.sh" "$dir" > "$dir/summary.txt" 2>&1
}

# verdict N NAME TESTS RULE DIR SECONDS: count and print one mutant
verdict()
{
	local n=$1 name=$2 tests=$3 rule=$4 dir=$5 secs=$6 why
	total=$((total + 1))
	if [ "$(cat "$dir/ue_mutant" 2>/dev/null)" != "$n" ]; then
		die "the guest ran mutant $n with ue_mutant=$(cat "$dir/ue_mutant" 2>/dev/null || echo none) ($dir)"
	fi
	if [ -f "$dir/done" ] && judge "$dir"; then
		survived=$((survived + 1))
		printf 'SURVIVED %2d %-36s %5s  (%s; %s)\n' "$n" "$name" "$(mmss "$secs")" \
			"$tests" "$rule" | tee -a "$M/score.txt"
		return
	fi
	killed=$((killed + 1))
	if [ -f "$dir/done" ]; then
		why=$(grep -a 'not ok' "$dir/summary.txt" | head -2 | sed 's/not ok [0-9]* *//' |
		      tr '\n' ';' | cut -c1-120)
	else
		why="the guest died: $(grep -a "guest run FAILED" "$M/results/vm.log" 2>/dev/null | tail -n 1 | sed "s/.*FAILED: //")"
	fi
	printf 'killed   %2d %-36s %5s  %s\n' "$n" "$name" "$(mmss "$secs")" "${why%;}" |
		tee -a "$M/score.txt"
}

# The mutants run one after the other in one boot: the guest sets
# ue_mutant (a writable parameter) before each and clears it after.  A
# guest that dies (panic, hang) kills the mutant it was running; the rest
# go on in a new boot.
run()
{
	local start=$SECONDS batch=() alone=() n name tests rule flag l t union=
	local killed=0 survived=0 total=0 boot=0
	local -A want=()

	[ -f "$B/obj-mutate/arch/x86/boot/bzImage" ] || die "no mutant kernel: make mutate (or mutate.sh build) first"
	for a in "$@"; do want[$a]=1; done
	while IFS= read -r l; do
		IFS=$'\t' read -r n name tests rule flag <<< "$l"
		[ $# -eq 0 ] || [ -n "${want[$n]:-}" ] || [ -n "${want[$name]:-}" ] || continue
		if [ -n "$flag" ]; then alone+=("$l"); else batch+=("$l"); fi
		for t in ${tests//,/ }; do
			[[ ,$union, == *,$t,* ]] || union+=${union:+,}$t
		done
	done < <(mutants)
	[ $((${#batch[@]} + ${#alone[@]})) -gt 0 ] || die "no mutant matches: $*"
	rm -rf "$M/results"
	mkdir -p "$M/results"
	: > "$M/score.txt"

	# First the clean run, ue_mutant=0 with every program some mutant
	# names; then the mutants, those marked "alone" in boots of their own
	run_boots "0	none	$union	no mutant: every program must pass	" "${batch[@]}"
	for l in "${alone[@]}"; do
		run_boots "$l"
	done
	echo "mutants: $killed killed, $survived survived of $total" | tee -a "$M/score.txt"
	echo "run time: $(mmss $((SECONDS - start))) ($boot boots, clean run included)" | tee -a "$M/score.txt"
	[ "$survived" -eq 0 ]
}

# run_boots MUTANT_LINE...: run these one after the other, booting again
# after a guest that died
run_boots()
{
	local todo=("$@") rest l n name tests rule flag dir t0 died
	local -A began=()

	while [ ${#todo[@]} -gt 0 ]; do
		boot=$((boot + 1))
		for l in "${todo[@]}"; do
			IFS=$'\t' read -r n name tests rule flag <<< "$l"
			printf '%s %s %s\n' "$n" "$name" "$tests"
		done > "$M/plan.txt"
		log "boot $boot: ${#todo[@]} run(s), from $(head -n 1 "$M/plan.txt" | cut -d' ' -f1,2)"
		t0=$SECONDS
		# tp_printk as in make test (harness/test.sh): records_test's
		# printk fixture skips without it
		UE_TIMEOUT=$(( ${UE_MUTATE_TIMEOUT:-600} + 300 * ${#todo[@]} )) \
			"$UE_REPO/harness/vm.sh" mutate "$UE_REPO/harness/mutants/guest.sh" \
			"$M/results/boot$boot" \
			UE_TIMEOUT_FACTOR="${UE_MUTATE_TIMEOUT_FACTOR:-2}" \
			tp_printk tp_printk_stop_on_boot \
			2> "$M/results/vm.log" || true
		cat "$M/results/vm.log" >> "$M/results/vm-all.log"
		rest=() died=
		for l in "${todo[@]}"; do
			IFS=$'\t' read -r n name tests rule flag <<< "$l"
			dir=$M/results/boot$boot/$n-$name
			if [ ! -d "$dir" ] || [ -n "$died" ]; then
				rest+=("$l")
				continue
			fi
			began[$n]=$(stat -c %Y "$dir/ue_mutant" 2>/dev/null || date +%s)
			rm -rf "$M/results/$n-$name"
			mv "$dir" "$M/results/$n-$name"
			dir=$M/results/$n-$name
			[ -f "$dir/done" ] || died=1
			if [ "$n" = 0 ]; then
				if [ ! -f "$dir/done" ] || ! judge "$dir"; then
					grep -a 'not ok\|splat\|^ \+#' "$dir/summary.txt" 2>/dev/null | head -30 >&2
					die "the clean run fails ($dir/summary.txt): fix that first"
				fi
				log "clean run passed"
				continue
			fi
			verdict "$n" "$name" "$tests" "$rule" "$dir" \
				$(( $(stat -c %Y "$dir/done" 2>/dev/null || date +%s) - began[$n] ))
		done
		if [ ${#rest[@]} -eq ${#todo[@]} ]; then
			tail -n 30 "$M/results/boot$boot/console.log" >&2
			die "boot $boot ran nothing (console: $M/results/boot$boot/console.log)"
		fi
		todo=("${rest[@]}")
		log "boot $boot took $(mmss $((SECONDS - t0)))"
	done
}

# judge_boot DIR: the verdicts of the mutant directories in DIR
judge_boot()
{
	local d b n name killed=0 survived=0 total=0
	[ -d "${1:-}" ] || die "usage: mutate.sh judge build/mutate/results/bootK"
	for d in $(find "$1" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*-*' | sort -t/ -V); do
		b=${d##*/} n=${b%%-*} name=${b#*-}
		[ "$n" != 0 ] || continue
		verdict "$n" "$name" "" "" "$d" 0
	done
	echo "mutants: $killed killed, $survived survived of $total (judged in $1)"
}

case $step in
list)	mutants ;;
judge)	judge_boot "$@" ;;
prepare) prepare ;;
build)	prepare; build ;;
kernel)	build ;;
run)	run "$@" ;;
all)	start=$SECONDS; prepare; build; run "$@" ||
	{ log "make mutate: $(mmss $((SECONDS - start))) in all"; exit 1; }
	log "make mutate: $(mmss $((SECONDS - start))) in all" ;;
*)	die "usage: mutate.sh [all|prepare|build|kernel|run|list|judge] [NAME|N ...|DIR]" ;;
esac
