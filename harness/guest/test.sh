#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest driver of "make test": run the user_events kselftests, collect
# KUnit results, scan for leaks, save dmesg.  Everything goes to
# $UE_RESULTS; the host parses and judges it.
#
# UE_T: run only these kselftest programs (comma-separated names); the
#   selection is written to $UE_RESULTS/kselftest/selected.txt
# UE_SKIP_KMEMLEAK=1: skip the (slow) final kmemleak scan
# UE_TIMEOUT_FACTOR: multiplies the kselftest "settings" timeout (3)
R=$UE_RESULTS
mkdir -p "$R/kselftest" "$R/kunit"
uptime() { local u; u=$(</proc/uptime); echo "${u%% *}s"; }

# The programs to run: every one of kselftest-list.txt, or those UE_T
# names.  The selection is recorded for the host (results.sh), which
# judges exactly these.
sel=()
while IFS=: read -r coll prog; do
	[ -n "$prog" ] || continue
	[ -z "${UE_T:-}" ] || [[ ",$UE_T," == *",$prog,"* ]] || continue
	sel+=("$coll:$prog")
done < "$UE_KSELFTEST/kselftest-list.txt"
printf '%s\n' "${sel[@]}" > "$R/kselftest/selected.txt"

# "[guest] UPTIME test I/N: ..." lines are what the host shows as progress
n=0
for cp in "${sel[@]}"; do
	n=$((n + 1))
	coll=${cp%%:*} prog=${cp#*:}
	dir=$UE_KSELFTEST/$coll
	t=45
	while IFS='=' read -r k v; do
		[ "$k" = timeout ] && t=$v
	done < "$dir/settings" 2>/dev/null
	t=$((t * ${UE_TIMEOUT_FACTOR:-3}))
	echo "[guest] $(uptime) test $n/${#sel[@]}: $cp (timeout ${t}s)"
	start=$SECONDS
	# A writable cwd of its own: the 9p root is read-only
	mkdir -p "/tmp/kselftest/$prog"
	(cd "/tmp/kselftest/$prog" && timeout -k 5 "$t" "$dir/$prog") \
		> "$R/kselftest/$prog.tap" 2>&1
	rc=$?
	echo $rc > "$R/kselftest/$prog.rc"
	echo "[guest] $(uptime) test $n/${#sel[@]}: $cp exited with $rc after $((SECONDS - start)) s"
done

for d in /sys/kernel/debug/kunit/*/; do
	d=${d%/}
	[ -f "$d/results" ] && while IFS= read -r l; do echo "$l"; done \
		< "$d/results" > "$R/kunit/${d##*/}.ktap"
done

if [ -w /sys/kernel/debug/kmemleak ] && [ "${UE_SKIP_KMEMLEAK:-0}" != 1 ]; then
	echo "[guest] $(uptime) kmemleak scan"
	# Two scans: kmemleak reports an unreferenced object only when its
	# contents did not change since the previous scan (and it is > 5 s old).
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak > "$R/kmemleak.txt"
fi
# The KCSAN flavour's counters: how many watchpoints were set up
[ -r /sys/kernel/debug/kcsan ] && echo "$(</sys/kernel/debug/kcsan)" > "$R/kcsan.txt"
echo "[guest] $(uptime) saving dmesg"
echo "$(</proc/sys/kernel/tainted)" > "$R/tainted"
dmesg > "$R/dmesg.txt"
