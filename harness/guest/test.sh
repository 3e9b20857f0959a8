#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest driver of "make test": run the user_events kselftests, collect
# KUnit results, scan for leaks, save dmesg.  Everything goes to
# $UE_RESULTS; the host parses and judges it.
#
# UE_T: run only these kselftest programs (comma-separated names)
# UE_SKIP_KMEMLEAK=1: skip the (slow) final kmemleak scan
# UE_TIMEOUT_FACTOR: multiplies the kselftest "settings" timeout (3)
R=$UE_RESULTS
mkdir -p "$R/kselftest" "$R/kunit"
uptime() { local u; u=$(</proc/uptime); echo "${u%% *}s"; }

list=$UE_KSELFTEST/kselftest-list.txt
while IFS=: read -r coll prog; do
	[ -n "$prog" ] || continue
	if [ -n "${UE_T:-}" ] && [[ ",$UE_T," != *",$prog,"* ]]; then
		continue
	fi
	dir=$UE_KSELFTEST/$coll
	t=45
	while IFS='=' read -r k v; do
		[ "$k" = timeout ] && t=$v
	done < "$dir/settings" 2>/dev/null
	t=$((t * ${UE_TIMEOUT_FACTOR:-3}))
	echo "[guest] $(uptime) $coll:$prog (timeout ${t}s)"
	# A writable cwd of its own: the 9p root is read-only
	mkdir -p "/tmp/kselftest/$prog"
	(cd "/tmp/kselftest/$prog" && timeout -k 5 "$t" "$dir/$prog") \
		> "$R/kselftest/$prog.tap" 2>&1
	echo $? > "$R/kselftest/$prog.rc"
done < "$list"

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
echo "[guest] $(uptime) saving dmesg"
echo "$(</proc/sys/kernel/tainted)" > "$R/tainted"
dmesg > "$R/dmesg.txt"
