#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make test": assemble, build the debug kernel and the userspace, check
# the exported series (series.sh --tap: git am, MAINTAINERS, checkpatch)
# and the documents (doccheck.py: links, make help), boot, run the kselftests (+ KUnit, kmemleak, splat scan) and judge.
#
# UE_T=prog[,prog]   run only these kselftest programs (and skip the
#                    series check)
# UE_SKIP_KMEMLEAK=1 skip the final kmemleak scan (faster)
# UE_ACCEL, UE_TIMEOUT: see vm.sh
# UE_ARCH=x86_64,arm64,...|all (make test ARCH=...): the architectures;
#   the others than x86_64 run through harness/arch.sh
set -uo pipefail
. "$(dirname "$0")/lib.sh"
lock_build

"$UE_REPO/harness/deps.sh" || exit 1
"$UE_REPO/harness/assemble.sh" || exit 1
arches=$("$UE_REPO/harness/arch.sh" names "${UE_ARCH:-}") || exit 1
read -ra others <<< "${arches//x86_64/}"
[ ${#others[@]} -eq 0 ] || "$UE_REPO/harness/deps.sh" cross || exit 1
if [[ " $arches " != *" x86_64 "* ]]; then
	UE_LOCKED=1 exec "$UE_REPO/harness/arch.sh" test "${others[@]}"
fi
"$UE_REPO/harness/kernel.sh" debug || exit 1
"$UE_REPO/harness/userspace.sh" debug || exit 1

res=$B/results-test
mkdir -p "$B/tmp"
"$UE_REPO/harness/tests/scanner-test.sh" > "$B/tmp/scanner-test.tap"
"$UE_REPO/harness/doccheck.py" "$UE_REPO" > "$B/tmp/docs.tap"

# T= names programs of the kselftest list (the guest selects them)
for t in ${UE_T:+${UE_T//,/ }}; do
	grep -q ":$t\$" "$B/kselftest/kselftest-list.txt" ||
		die "T=$UE_T: no kselftest program $t; there are: $(cut -d: -f2 "$B/kselftest/kselftest-list.txt" | tr '\n' ' ')"
done

# The deliverable itself: export, git am, MAINTAINERS, checkpatch (no builds)
stap=$B/tmp/series.tap
if [ -n "${UE_T:-}" ]; then
	echo "ok - series: export, git am, checkpatch # SKIP T= runs only the named kselftests" > "$stap"
else
	log "checking the series: export, git am, checkpatch (log: build/tmp/series.log)"
	"$UE_REPO/harness/series.sh" --tap "$stap" > "$B/tmp/series.log" 2>&1
	rc=$?
	[ $rc = 0 ] || grep -q '^not ok' "$stap" ||
		echo "not ok - series: harness/series.sh --tap exited with $rc (build/tmp/series.log)" >> "$stap"
fi

# tp_printk is there for records_test, which turns it on for one event;
# it stops printing every event once the boot is done
args=("UE_SKIP_KMEMLEAK=${UE_SKIP_KMEMLEAK:-0}" tp_printk tp_printk_stop_on_boot)
[ -n "${UE_T:-}" ] && args+=("UE_T=$UE_T")
[ -n "${UE_TIMEOUT_FACTOR:-}" ] && args+=("UE_TIMEOUT_FACTOR=$UE_TIMEOUT_FACTOR")
# The guest's limit only catches a hang that no per-program timeout can
# (the kernel itself): 20 programs under TCG on a loaded host take long.
UE_TIMEOUT=${UE_TIMEOUT:-3000} \
	"$UE_REPO/harness/vm.sh" debug "$UE_REPO/harness/guest/test.sh" "$res" "${args[@]}"

sums=
for a in "${others[@]}"; do
	UE_LOCKED=1 "$UE_REPO/harness/arch.sh" one "$a" "$B/results-test-$a"
	sums+=" $B/results-test-$a/summary.txt"
done
UE_ARCH_SUMMARIES=$sums "$UE_REPO/harness/results.sh" "$res" "$B/tmp/scanner-test.tap" "$B/tmp/docs.tap" "$stap"
