#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest driver of make check's "lockdown" step: the debug kernel
# booted with lockdown=integrity or lockdown=confidentiality (the lockdown
# LSM of harness/configs/debug.config).  Writes $UE_RESULTS/lockdown.tap
# (one line per check, judged with the kselftests by results.sh):
#
# integrity        user_events works as without lockdown: the kselftests
#                  of UE_T run (harness/guest/test.sh); then the level is
#                  raised to confidentiality at run time: from then on no
#                  tracefs file opens (EPERM), and a program that had
#                  registered before keeps running with its enable bits
#                  clear (nobody can enable its events any more)
# confidentiality  at boot: tracefs stays empty (no user_events_data, no
#                  events/), so programs find no user_events (ENOENT);
#                  KUnit ran at boot, no kselftest runs (UE_T=none)
R=$UE_RESULTS
T=/sys/kernel/tracing
L=/sys/kernel/security/lockdown
EMIT=$UE_KSELFTEST/user_events/ue_emit
tap=$R/lockdown.tap
: > "$tap"
n=0
uptime() { local u; u=$(</proc/uptime); echo "${u%% *}s"; }

# check DESCRIPTION COMMAND...: one TAP line
check()
{
	local desc=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n lockdown: $desc" >> "$tap"
	else
		echo "not ok $n lockdown: $desc" >> "$tap"
	fi
}

# level: the lockdown level in force, from "none [integrity] confidentiality"
level()
{
	local l
	l=$(<$L) || return 1
	l=${l#*[}
	echo "${l%%]*}"
}

# open_fails ERRNO_TEXT FILE MODE: opening FILE (< or >) fails with it
open_fails()
{
	local want=$1 f=$2 mode=$3 out
	if [ "$mode" = '<' ]; then
		out=$( { exec 4<"$f"; } 2>&1 ) && return 1
	else
		out=$( { exec 4>"$f"; } 2>&1 ) && return 1
	fi
	[[ $out == *"$want"* ]] || { echo "[guest] $f: $out" >&2; return 1; }
}

# dmesg_has TEXT: the kernel log has a line with TEXT
dmesg_has() { [[ $(dmesg) == *"$1"* ]]; }

mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
booted=$(level)
echo "[guest] $(uptime) lockdown: booted with '$booted'"

case $booted in
integrity)
	check "booted with lockdown=integrity" true
	check "user_events_data opens for writing" eval 'exec 4>"$T/user_events_data" && exec 4>&-'
	# The kselftests (and the KUnit results, dmesg) as make test gets them;
	# no kmemleak: its debugfs file is write-protected under lockdown
	UE_SKIP_KMEMLEAK=1 bash "$UE_REPO/harness/guest/test.sh"

	# A program registered before the raise: ue_emit holds two events
	coproc EMIT_P { "$EMIT" 2>&1; }
	echo pid >&"${EMIT_P[1]}"
	read -r -t 60 pid <&"${EMIT_P[0]}"
	check "ue_emit registered its events" test -n "$pid" -a -d "$T/events/user_events/ue_tools_a"

	echo confidentiality > $L
	check "raised to confidentiality at run time" test "$(level)" = confidentiality
	check "user_events_data no longer opens: EPERM" \
		open_fails "Operation not permitted" "$T/user_events_data" '>'
	check "user_events_status no longer opens: EPERM" \
		open_fails "Operation not permitted" "$T/user_events_status" '<'
	check "dynamic_events no longer opens: EPERM" \
		open_fails "Operation not permitted" "$T/dynamic_events" '<'
	check "an event's enable file no longer opens: EPERM" \
		open_fails "Operation not permitted" "$T/events/user_events/ue_tools_a/enable" '>'
	# The registered program goes on: its bits are clear, it writes nothing
	echo bit >&"${EMIT_P[1]}"
	read -r -t 60 bits <&"${EMIT_P[0]}"
	check "a program registered before the raise runs on, bits clear ('$bits')" test "$bits" = "0 0"
	echo "emit a 1 3 m d r" >&"${EMIT_P[1]}"
	read -r -t 60 wrote <&"${EMIT_P[0]}"
	check "it writes nothing while nobody can enable its events ('$wrote')" test "$wrote" = "wrote 0"
	echo quit >&"${EMIT_P[1]}"
	wait "$EMIT_P_PID" 2>/dev/null
	check "the kernel says why: 'use of tracefs is restricted'" dmesg_has "use of tracefs is restricted"
	;;
confidentiality)
	check "booted with lockdown=confidentiality" true
	check "tracefs has no user_events_data" test ! -e "$T/user_events_data"
	check "tracefs has no dynamic_events" test ! -e "$T/dynamic_events"
	check "tracefs has no events directory" test ! -e "$T/events"
	# read-only: bash's ">" would add O_CREAT, which tracefs refuses (EACCES)
	check "opening user_events_data fails: ENOENT" \
		open_fails "No such file or directory" "$T/user_events_data" '<'
	check "the kernel says why: 'use of tracefs is restricted'" dmesg_has "use of tracefs is restricted"
	# No kselftest (UE_T=none): they all need tracefs.  The KUnit
	# results of the boot are collected.
	UE_SKIP_KMEMLEAK=1 bash "$UE_REPO/harness/guest/test.sh"
	;;
*)
	check "booted with lockdown=integrity or confidentiality (got '$booted')" false
	bash "$UE_REPO/harness/guest/test.sh"
	;;
esac
echo "1..$n" >> "$tap"
# The log of the whole run, after the raise too
dmesg > "$R/dmesg.txt"
! grep -q '^not ok' "$tap"
