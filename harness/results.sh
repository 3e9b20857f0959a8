#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Judge a "make test" run: print every test line and end with exactly one
# "N passed, N failed, N skipped" line; exit 0 only if nothing failed.
#
#   results.sh RESULTS_DIR [EXTRA_TAP_FILE...]
#
# harness/arch.sh judges its guests with UE_KSELFTEST_LIST (that arch's
# kselftest-list.txt) and UE_RESULT_PREFIX ("arm64: ", before every line);
# UE_ARCH_SUMMARIES lists its summary files, whose lines are printed and
# whose counts are added here, with one "NAME: N passed, ..." line each.
#
# Counted: each kselftest_harness case ("ok N name", "not ok N name",
# "# SKIP"), each KUnit case, each line of the EXTRA_TAP_FILEs (the
# scanner self-test), plus one check per program that crashes, times out
# or prints no TAP, "guest run completed", "dmesg clean" and
# "kmemleak clean".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

res=${1:?results dir}
shift
pass=0 fail=0 skip=0
list=${UE_KSELFTEST_LIST:-$B/kselftest/kselftest-list.txt}

# count PREFIX TAPLINE: classify and print one TAP result line
count()
{
	local prefix=$1 line=$2
	if [[ $line =~ ^not\ ok ]]; then
		fail=$((fail + 1))
	elif [[ $line =~ \#\ [Ss][Kk][Ii][Pp] ]]; then
		skip=$((skip + 1))
	else
		pass=$((pass + 1))
	fi
	printf '%s%s%s\n' "${UE_RESULT_PREFIX:-}" "$prefix" "$line"
}

# Scanner self-test and other host-side TAP files (the series check); the
# indented "#" diagnostics of a failed line are shown with it
for f in "$@"; do
	failing=
	while IFS= read -r l; do
		if [[ $l =~ ^(not\ )?ok\  ]]; then
			failing=${BASH_REMATCH[1]:-}
			count "" "$l"
		elif [ -n "$failing" ] && [[ $l =~ ^\ +# ]]; then
			printf '%s\n' "$l"
		fi
	done < "$f"
done

if [ -f "$res/done" ]; then
	count "" "ok - guest run completed"
else
	count "" "not ok - guest run completed (see $res/console.log)"
fi

# kselftest programs: the ones the guest selected (harness/guest/test.sh
# applies UE_T and records its choice); for a guest that records none,
# those of the list that left a result
if [ -f "$res/kselftest/selected.txt" ]; then
	list=$res/kselftest/selected.txt
fi
if [ -f "$list" ]; then
	while IFS=: read -r coll prog; do
		[ -n "$prog" ] || continue
		if [ "$list" != "$res/kselftest/selected.txt" ] &&
		   [ ! -f "$res/kselftest/$prog.rc" ] && [ ! -f "$res/kselftest/$prog.tap" ]; then
			continue
		fi
		tap=$res/kselftest/$prog.tap
		rc=$(cat "$res/kselftest/$prog.rc" 2>/dev/null || echo missing)
		n=0 nfail=0 plan=
		if [ -f "$tap" ]; then
			diag=()
			while IFS= read -r l; do
				if [[ $l =~ ^#\ +RUN ]]; then
					diag=()
				elif [[ $l =~ ^# ]] && [ ${#diag[@]} -lt 15 ]; then
					diag+=("$l")
				fi
				if [[ $l =~ ^(not\ )?ok\ [0-9]+ ]]; then
					n=$((n + 1))
					if [[ $l =~ ^not ]]; then
						nfail=$((nfail + 1))
						[ ${#diag[@]} -eq 0 ] || printf '    %s\n' "${diag[@]}"
					fi
					count "$coll:$prog: " "$l"
				elif [[ $l =~ ^1\.\.([0-9]+) ]]; then
					plan=${BASH_REMATCH[1]}
				fi
			done < "$tap"
		fi
		# the program as a whole: crashes, timeouts, silence
		if [ "$rc" = missing ]; then
			count "" "not ok - $coll:$prog did not run"
		elif [ $n -eq 0 ] && [ "$rc" = 4 ]; then
			count "" "ok - $coll:$prog # SKIP $(grep -m1 -i skip "$tap" | tr -d '\r')"
		elif [ $n -eq 0 ]; then
			count "" "not ok - $coll:$prog printed no TAP results (exit $rc)"
		elif [ -n "$plan" ] && [ "$plan" != $n ]; then
			count "" "not ok - $coll:$prog planned $plan tests but reported $n (exit $rc)"
		elif [ $nfail -eq 0 ] && [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
			count "" "not ok - $coll:$prog exited with $rc$( [ "$rc" = 124 ] && echo ' (timeout)')"
		fi
	done < "$list"
fi

# KUnit: every suite of trace_events_user_kunit.c must have left results
# (a kernel built without them, or a suite that was not run, fails here)
if [ -f "$res/done" ]; then
	suites=$(sed -n 's/^[[:space:]]*\.name = "\(user_events_[a-z_]*\)",$/\1/p' \
		"$UE_REPO/kernel/trace/trace_events_user_kunit.c")
	[ -n "$suites" ] ||
		count "" "not ok - no KUnit suite named in trace_events_user_kunit.c"
	for suite in $suites; do
		[ -f "$res/kunit/$suite.ktap" ] ||
			count "" "not ok - kunit:$suite did not run"
	done
fi

# KUnit: the cases of each suite (the suite line only when it has none)
for k in "$res"/kunit/*.ktap; do
	[ -f "$k" ] || continue
	suite=$(basename "$k" .ktap)
	cases=$(grep -cE '^    (not )?ok [0-9]+' "$k")
	while IFS= read -r l; do
		if [ "$cases" -gt 0 ]; then
			[[ $l =~ ^\ {4}((not\ )?ok\ [0-9]+.*)$ ]] && count "kunit:$suite: " "${BASH_REMATCH[1]}"
		else
			[[ $l =~ ^(not\ )?ok\ [0-9]+ ]] && count "kunit:$suite: " "$l"
		fi
	done < "$k"
done

# Kernel splats: dmesg (or the console when the guest did not finish)
logs=()
if [ -f "$res/dmesg.txt" ]; then
	logs+=("$res/dmesg.txt")
else
	logs+=("$res/console.log")
fi
if out=$("$UE_REPO/harness/scan-splats.sh" "${logs[@]}"); then
	count "" "ok - dmesg clean"
else
	printf '%s\n' "$out" | head -40 | sed 's/^/# splat: /'
	count "" "not ok - dmesg clean"
fi
if [ -f "$res/kmemleak.txt" ]; then
	if out=$("$UE_REPO/harness/scan-splats.sh" "$res/kmemleak.txt") && [ ! -s "$res/kmemleak.txt" ]; then
		count "" "ok - kmemleak clean"
	else
		head -40 "$res/kmemleak.txt" | sed 's/^/# kmemleak: /'
		count "" "not ok - kmemleak clean"
	fi
elif [ -f "$res/done" ]; then
	count "" "ok - kmemleak clean # SKIP no kmemleak scan"
fi

# Other architectures (harness/arch.sh): already judged there
if [ -n "${UE_ARCH_SUMMARIES:-}" ]; then
	sums=("x86_64: $pass passed, $fail failed, $skip skipped")
	for f in $UE_ARCH_SUMMARIES; do
		sed '$d' "$f"
		last=$(tail -n 1 "$f")
		if [[ $last =~ :\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
			pass=$((pass + BASH_REMATCH[1])) fail=$((fail + BASH_REMATCH[2]))
			skip=$((skip + BASH_REMATCH[3]))
			sums+=("$last")
		else
			count "" "not ok - no summary in $f"
		fi
	done
	printf '%s\n' "${sums[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
