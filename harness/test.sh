#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make test": assemble, build the debug kernel and the userspace, boot,
# run the kselftests (+ KUnit, kmemleak, splat scan) and judge.
#
# UE_T=prog[,prog]   run only these kselftest programs
# UE_SKIP_KMEMLEAK=1 skip the final kmemleak scan (faster)
# UE_ACCEL, UE_TIMEOUT: see vm.sh
set -uo pipefail
. "$(dirname "$0")/lib.sh"
lock_build

"$UE_REPO/harness/deps.sh" || exit 1
"$UE_REPO/harness/assemble.sh" || exit 1
"$UE_REPO/harness/kernel.sh" debug || exit 1
"$UE_REPO/harness/userspace.sh" debug || exit 1

res=$B/results-test
mkdir -p "$B/tmp"
"$UE_REPO/harness/tests/scanner-test.sh" > "$B/tmp/scanner-test.tap"

args=("UE_SKIP_KMEMLEAK=${UE_SKIP_KMEMLEAK:-0}")
[ -n "${UE_T:-}" ] && args+=("UE_T=$UE_T")
[ -n "${UE_TIMEOUT_FACTOR:-}" ] && args+=("UE_TIMEOUT_FACTOR=$UE_TIMEOUT_FACTOR")
"$UE_REPO/harness/vm.sh" debug "$UE_REPO/harness/guest/test.sh" "$res" "${args[@]}"

"$UE_REPO/harness/results.sh" "$res" "$B/tmp/scanner-test.tap"
