#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make mutate": does a test fail for every broken rule?
#
# harness/mutants/mutants.txt lists mutants, each a deliberate break of one
# rule of the ABI (a limit moved by one, an errno swapped, a check or a
# reference dropped, ...) located by anchor text in the sources, with the
# kselftest programs that must kill it.  All of them are compiled into ONE
# debug kernel (harness/mutants/apply.py), each behind "ue_mutant == N"; the
# kernel parameter ue_mutant=N picks one at boot.  The kernel boots once
# with ue_mutant=0, running every program some mutant names (all must
# pass), then once per mutant running only the programs it names.  A
# mutant is killed when a kselftest case or KUnit case fails, a program
# crashes or times out, dmesg shows a splat, or the guest panics or hangs.
# Prints one line per mutant, "mutants: N killed, N survived of N" and the
# run time; exits 1 when a mutant survived or the clean run failed.
#
#   mutate.sh [all|prepare|build|kernel|run|list] [NAME|N ...]
#     all      (make mutate) prepare, build, run
#     prepare  assemble, build the userspace (holding the harness lock),
#              copy the tree and the kselftests to build/mutate/, apply
#              the mutants; a missing anchor fails here
#     build    prepare, then build the mutant kernel
#     kernel   only build the mutant kernel (after prepare)
#     run      boot the built kernel: the clean run, then each mutant (or
#              only the mutants named)
#     list     the mutants: number, name, tests, rule
#
# Not part of make test or CI: ~1 min per mutant.  Everything lives in
# build/mutate/: linux (the tree with the mutants), obj-debug (its kernel;
# build/obj-mutate links to it), kselftest, results/N-NAME/ (console.log,
# TAP, dmesg, summary.txt) and score.txt.  build/mutate/obj-debug sits next
# to build/mutate/linux as build/obj-debug does to build/linux, so ccache
# serves every object but the mutated ones from make test's builds; make
# test's tree and objects are never touched.  Only prepare holds the
# harness lock; the boots do not block make test.
#
# UE_MUTATE_TIMEOUT: hard limit of one guest run in seconds (600).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

M=$B/mutate
MUTS=$UE_REPO/harness/mutants/mutants.txt
APPLY=$UE_REPO/harness/mutants/apply.py
step=${1:-all}
[ $# -eq 0 ] || shift

# mutants: "N<TAB>NAME<TAB>TESTS<TAB>RULE" lines
mutants() { python3 "$APPLY" --list "$MUTS"; }

prepare()
{
	local had_lock=${UE_LOCKED:-} t f excl=()

	python3 "$APPLY" --check "$MUTS" "$UE_REPO" || exit 1
	lock_build
	"$UE_REPO/harness/deps.sh" || exit 1
	"$UE_REPO/harness/assemble.sh" || exit 1
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
	cmp -s "$B/obj-debug/.config" "$M/obj-debug/.config" ||
		cp "$B/obj-debug/.config" "$M/obj-debug/.config"
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

	make -s -C "$M/linux" O="$M/obj-debug" olddefconfig >"$M/olddefconfig.log" 2>&1 ||
		{ cat "$M/olddefconfig.log" >&2; die "olddefconfig of the mutant kernel failed"; }
	[ ! -f "$M/obj-debug/.ue-objects" ] || total=$(cat "$M/obj-debug/.ue-objects")
	log "building the mutant kernel (O=${M#"$UE_REPO"/}/obj-debug, -j$JOBS, CC=$KCC)"
	if ! make -C "$M/linux" O="$M/obj-debug" CC="$KCC" -j"$JOBS" bzImage 2>&1 |
	     kbuild_progress "$M/obj-debug/build.log" "mutant kernel" "$total"; then
		grep -E 'error|Error' -A5 "$M/obj-debug/build.log" | head -60 >&2
		die "mutant kernel build failed (${M#"$UE_REPO"/}/obj-debug/build.log)"
	fi
	find "$M/obj-debug" -name '.*.o.cmd' | wc -l > "$M/obj-debug/.ue-objects"
	# A mutant that draws a warning is one to fix: it may not do what it says
	warn=$(grep -a 'trace_events_user.*warning:' "$M/obj-debug/build.log" || true)
	[ -z "$warn" ] || { printf '%s\n' "$warn" >&2; die "the mutants draw compiler warnings"; }
	ln -sfn mutate/obj-debug "$B/obj-mutate"
	log "mutant kernel ready in $((SECONDS - start)) s"
}

# boot N PROGS DIR: one guest run with ue_mutant=N; the judgement of
# results.sh in DIR/summary.txt.  Returns 0 when everything passed.
boot()
{
	local n=$1 progs=$2 dir=$3 rc=0

	rm -rf "$dir" "$dir.vm.log"
	UE_CMDLINE="${UE_CMDLINE:-} ue_mutant=$n" UE_TIMEOUT=${UE_MUTATE_TIMEOUT:-600} \
		"$UE_REPO/harness/vm.sh" mutate "$UE_REPO/harness/mutants/guest.sh" "$dir" \
		UE_SKIP_KMEMLEAK=1 "UE_T=$progs" 2> "$dir.vm.log" || rc=$?
	mkdir -p "$dir"
	mv "$dir.vm.log" "$dir/vm.log"
	if [ ! -f "$dir/done" ]; then
		echo "not ok - guest run: $(grep -a 'guest run FAILED' "$dir/vm.log" | sed 's/.*FAILED: //')" \
			> "$dir/summary.txt"
		return 1
	fi
	# A kernel that ignored ue_mutant would make every mutant survive
	[ "$(cat "$dir/ue_mutant" 2>/dev/null)" = "$n" ] ||
		die "the guest of mutant $n reports ue_mutant=$(cat "$dir/ue_mutant" 2>/dev/null || echo none) (see $dir/console.log)"
	UE_KSELFTEST_LIST=$M/kselftest/kselftest-list.txt \
		"$UE_REPO/harness/results.sh" "$dir" > "$dir/summary.txt" 2>&1 || rc=1
	return $rc
}

run()
{
	local start=$SECONDS all=() sel=() n name tests rule t0 dir why
	local killed=0 survived=0 total=0 union=
	local -A want=()

	[ -f "$B/obj-mutate/arch/x86/boot/bzImage" ] || die "no mutant kernel: make mutate (or mutate.sh build) first"
	for a in "$@"; do want[$a]=1; done
	mapfile -t all < <(mutants)
	for l in "${all[@]}"; do
		IFS=$'\t' read -r n name tests rule <<< "$l"
		[ $# -eq 0 ] || [ -n "${want[$n]:-}" ] || [ -n "${want[$name]:-}" ] || continue
		sel+=("$l")
		for t in ${tests//,/ }; do
			[[ ,$union, == *,$t,* ]] || union+=${union:+,}$t
		done
	done
	[ ${#sel[@]} -gt 0 ] || die "no mutant matches: $*"
	mkdir -p "$M/results"

	log "clean run (ue_mutant=0): $union"
	t0=$SECONDS
	if ! boot 0 "$union" "$M/results/0-none"; then
		grep -a '^not ok\|splat' "$M/results/0-none/summary.txt" | head -20 >&2
		die "the clean run fails ($M/results/0-none/summary.txt): fix that first"
	fi
	log "clean run passed in $(mmss $((SECONDS - t0)))"

	: > "$M/score.txt"
	for l in "${sel[@]}"; do
		IFS=$'\t' read -r n name tests rule <<< "$l"
		dir=$M/results/$n-$name
		t0=$SECONDS
		total=$((total + 1))
		if boot "$n" "$tests" "$dir"; then
			survived=$((survived + 1))
			printf 'SURVIVED %2d %-36s %s  (%s; %s)\n' "$n" "$name" "$(mmss $((SECONDS - t0)))" \
				"$tests" "$rule" | tee -a "$M/score.txt"
		else
			killed=$((killed + 1))
			why=$(grep -a '^not ok' "$dir/summary.txt" | head -2 | sed 's/^not ok [0-9]* *//' |
			      tr '\n' ';' | cut -c1-110)
			printf 'killed   %2d %-36s %s  %s\n' "$n" "$name" "$(mmss $((SECONDS - t0)))" \
				"${why%;}" | tee -a "$M/score.txt"
		fi
	done
	echo "mutants: $killed killed, $survived survived of $total" | tee -a "$M/score.txt"
	echo "run time: $(mmss $((SECONDS - start))) (clean run included)" | tee -a "$M/score.txt"
	[ "$survived" -eq 0 ]
}

case $step in
list)	mutants ;;
prepare) prepare ;;
build)	prepare; build ;;
kernel)	build ;;
run)	run "$@" ;;
all)	start=$SECONDS; prepare; build; run "$@" ||
	{ log "make mutate: $(mmss $((SECONDS - start))) in all"; exit 1; }
	log "make mutate: $(mmss $((SECONDS - start))) in all" ;;
*)	die "usage: mutate.sh [all|prepare|build|kernel|run|list] [NAME|N ...]" ;;
esac
