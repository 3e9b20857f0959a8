#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# user_events through the tools operators use: perf, trace-cmd, the ftrace
# files (set_event, enable, set_event_pid), filters, triggers and hist.
# The emitter ue_emit registers ue_tools_a (u32, char[16], __data_loc and
# __rel_loc strings) and ue_tools_b (u32) and reports its enable bits, so
# every attachment is also checked from the process' side.
#
# Prints TAP; exit 0 pass, 1 fail, 4 skip (kselftest).  Few external
# commands on purpose: each exec is slow in a debug guest.

T=/sys/kernel/tracing
EV=$T/events/user_events
A=$EV/ue_tools_a
B=$EV/ue_tools_b
DIR=$(cd "$(dirname "$0")" && pwd)
EMIT=$DIR/ue_emit
N=0
FAILED=0
PLAN=34

tap() {	# tap RESULT(0 ok, 1 fail, 4 skip) DESC [REASON]
	N=$((N + 1))
	case $1 in
	0) echo "ok $N $2" ;;
	4) echo "ok $N $2 # SKIP $3" ;;
	*) echo "not ok $N $2${3:+ # $3}"; FAILED=1 ;;
	esac
}

# check DESC CONDITION...: ok when the condition (a command) succeeds
check() {
	local d=$1
	shift
	if "$@"; then tap 0 "$d"; else tap 1 "$d" "${WHY:-}"; fi
	WHY=
}

have() { command -v "$1" >/dev/null 2>&1; }

# The emitter as a coprocess: one command, one answer line
ask() {
	echo "$*" >&"${UE[1]}"
	REPLY=
	read -r -t 30 REPLY <&"${UE[0]}"
}
# want_bits "A B": both bits are set as expected, now: every tracer
# change updates them before it returns (the emitter's words stay mapped
# and writable); remember why when it fails
want_bits() {
	ask bit
	[ "$REPLY" = "$1" ] && return 0
	WHY="enable bits are '$REPLY', expected '$1'"
	return 1
}

put() {	# put FILE VALUE: write, quietly; the status tells
	{ echo "$2" > "$1"; } 2>/dev/null
}

clear_triggers() {
	local f=$1 l lines
	[ -f "$f" ] || return 0
	mapfile -t lines < "$f"
	for l in "${lines[@]}"; do
		[[ $l == \#* || -z $l ]] && continue
		l=${l%% \[*}
		l=${l%:unlimited}
		put "$f" "!$l"
	done
}

reset() {
	local e
	put $T/tracing_on 1
	put $T/set_event ""
	put $T/set_event_pid ""
	put $EV/enable 0
	for e in $A $B; do
		[ -d "$e" ] || continue
		clear_triggers "$e/trigger"
		# A second pass: enable_event triggers pin the other event
		clear_triggers "$e/trigger"
		put "$e/enable" 0
		put "$e/filter" 0
	done
	put $T/trace ""
}

TRACE=
read_trace() { TRACE=$(<$T/trace); }
# count PATTERN: number of trace lines containing PATTERN
count() {
	local l c=0
	while IFS= read -r l; do
		[[ $l == *"$1"* ]] && c=$((c + 1))
	done <<< "$TRACE"
	echo $c
}
# trace_has N PATTERN: exactly N lines of the trace contain PATTERN
trace_has() {
	local c
	read_trace
	c=$(count "$2")
	[ "$c" = "$1" ] && return 0
	WHY="$c lines with '$2' in trace, expected $1"
	return 1
}
# emit EV FIRST K MSG DMSG RMSG; ok when all K were written
emit() {
	ask emit "$@"
	[ "$REPLY" = "wrote $3" ] && return 0
	WHY="emitter: '$REPLY', expected 'wrote $3'"
	return 1
}

if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root"
	exit 4
fi
if [ ! -e $T/user_events_data ]; then
	echo "1..0 # SKIP no $T/user_events_data"
	exit 4
fi

echo "TAP version 13"
echo "1..$PLAN"
cd /tmp || exit 1
reset

coproc UE { "$EMIT"; }
ask pid
UE_PID=$REPLY
if [ -z "$UE_PID" ] || [ ! -d $A ] || [ ! -d $B ]; then
	echo "# ue_emit did not register its events"
	exit 1
fi
trap 'reset; ask quit' EXIT

# --- ftrace files ------------------------------------------------------
check "bits clear with nothing attached" want_bits "0 0"

t_set_event() {
	put $T/set_event user_events:ue_tools_a || return 1
	want_bits "1 0" || return 1
	[[ $(<$T/set_event) == *user_events:ue_tools_a* ]] ||
		{ WHY="set_event does not list it"; return 1; }
	echo '!user_events:ue_tools_a' >> $T/set_event
	want_bits "0 0"
}
check "set_event user_events:NAME and ! removal" t_set_event

t_set_event_glob() {
	put $T/set_event 'user_events:*' || return 1
	want_bits "1 1" || return 1
	[ "$(<$EV/enable)" = 1 ] || { WHY="subsystem enable not 1"; return 1; }
	echo '!user_events:*' >> $T/set_event
	want_bits "0 0"
}
check "set_event user_events:* and ! removal" t_set_event_glob

t_subsys_enable() {
	[ "$(<$EV/enable)" = 0 ] || { WHY="reads $(<$EV/enable), not 0"; return 1; }
	put $EV/enable 1 || return 1
	want_bits "1 1" || return 1
	[ "$(<$EV/enable)" = 1 ] || { WHY="reads $(<$EV/enable), not 1"; return 1; }
	put $B/enable 0
	want_bits "1 0" || return 1
	[ "$(<$EV/enable)" = X ] || { WHY="reads $(<$EV/enable), not X"; return 1; }
	put $EV/enable 0
	want_bits "0 0"
}
check "events/user_events/enable reads 0/1/X and drives the bits" t_subsys_enable

t_enable_trace() {
	put $T/trace ""
	put $A/enable 1
	want_bits "1 0" || return 1
	emit a 1 3 hello dyn rel || return 1
	put $A/enable 0
	want_bits "0 0" || return 1
	trace_has 3 "ue_tools_a: count=" || return 1
	trace_has 1 "count=2 msg=hello dmsg=dyn rmsg=rel"
}
check "per-event enable: decoded records in trace" t_enable_trace

t_event_pid() {
	local other
	put $T/trace ""
	put $T/set_event_pid "$UE_PID" || { WHY="set_event_pid write"; return 1; }
	put $A/enable 1
	want_bits "1 0" || return 1
	emit a 1 2 mine d r || return 1
	# Another process: its writes must be dropped by the pid filter
	other=$("$EMIT" once 10 4 other d r 2>&1)
	[ "$other" = "wrote 4" ] || { WHY="second emitter: $other"; return 1; }
	put $A/enable 0
	put $T/set_event_pid ""
	trace_has 2 "msg=mine" && trace_has 0 "msg=other"
}
check "set_event_pid keeps only the emitter's records" t_event_pid

# --- filters -------------------------------------------------------------
# filtered FILTER N: with FILTER set, records 1..3 (x/x/x), 4..8
# (abc/abd/abc...) give exactly N in the trace
filtered() {
	put $T/trace ""
	if ! put $A/filter "$1"; then
		WHY="filter '$1' rejected: $(<$A/filter)"
		return 1
	fi
	put $A/enable 1
	want_bits "1 0" || return 1
	emit a 1 3 x x x || return 1
	emit a 4 2 abc abc abc || return 1
	emit a 6 3 zab yab zab || return 1
	put $A/enable 0
	put $A/filter 0
	trace_has "$2" "ue_tools_a: count="
}
check "filter count > 5 (numeric)" filtered 'count > 5' 3
check "filter msg == \"x\" (char[N])" filtered 'msg == "x"' 3
check "filter msg ~ \"ab*\" (char[N] glob)" filtered 'msg ~ "ab*"' 2
check "filter dmsg == \"x\" (__data_loc)" filtered 'dmsg == "x"' 3
check "filter dmsg ~ \"*ab*\" (__data_loc glob)" filtered 'dmsg ~ "*ab*"' 5
check "filter count < 4 && msg != \"y\"" filtered 'count < 4 && msg != "y"' 3
# A __rel_loc char[] field is a string to the filter, as a __data_loc
# one is: ==, != and globs select on its text (zab), beside a
# __data_loc field with other text (yab) in the same records
check "filter rmsg == \"zab\" (__rel_loc)" filtered 'rmsg == "zab"' 3
check "filter rmsg != \"zab\" (__rel_loc)" filtered 'rmsg != "zab"' 5
check "filter rmsg ~ \"z*\" (__rel_loc glob)" filtered 'rmsg ~ "z*"' 3
check "filter dmsg == \"yab\" (__data_loc beside it)" filtered 'dmsg == "yab"' 3
check "filter dmsg != \"yab\" (__data_loc beside it)" filtered 'dmsg != "yab"' 5

t_bad_filter() {
	local err
	err=$( (echo 'nosuchfield > 1' > $A/filter) 2>&1)
	[[ $err == *"Invalid argument"* ]] ||
		{ WHY="write said '$err', not EINVAL"; return 1; }
	[[ $(<$A/filter) == *error* ]] ||
		{ WHY="filter file shows '$(<$A/filter)'"; put $A/filter 0; return 1; }
	put $A/filter 0
	want_bits "0 0"
}
check "bad filter: EINVAL and the error in the filter file" t_bad_filter

# --- triggers ------------------------------------------------------------
t_traceoff() {
	put $A/trigger traceoff || { WHY="trigger write"; return 1; }
	# The trigger soft-enables the event: the probe is attached
	want_bits "1 0" || return 1
	emit a 1 1 t t t || return 1
	[ "$(<$T/tracing_on)" = 0 ] || { WHY="tracing_on still 1"; return 1; }
	put $A/trigger '!traceoff'
	put $T/tracing_on 1
	want_bits "0 0"
}
check "traceoff trigger (soft-enable sets the bit)" t_traceoff

t_traceon() {
	put $T/tracing_on 0
	put $A/trigger traceon || { WHY="trigger write"; return 1; }
	want_bits "1 0" || return 1
	emit a 1 1 t t t || return 1
	[ "$(<$T/tracing_on)" = 1 ] || { WHY="tracing_on still 0"; return 1; }
	put $A/trigger '!traceon'
	want_bits "0 0"
}
check "traceon trigger" t_traceon

t_stacktrace() {
	put $T/trace ""
	put $A/trigger stacktrace || { WHY="trigger write"; return 1; }
	want_bits "1 0" || return 1
	emit a 1 2 s s s || return 1
	put $A/trigger '!stacktrace'
	want_bits "0 0" || return 1
	trace_has 2 "<stack trace>" || return 1
	# Soft-disabled event: the trigger fires, the record is not stored
	trace_has 0 "ue_tools_a: count="
}
check "stacktrace trigger" t_stacktrace

t_enable_event() {
	put $T/trace ""
	put $A/trigger 'enable_event:user_events:ue_tools_b' ||
		{ WHY="trigger write"; return 1; }
	# Both are soft-enabled: A for its trigger, B for the target
	want_bits "1 1" || return 1
	emit b 1 2 - - - || return 1
	trace_has 0 "ue_tools_b: count=" ||
		{ WHY="soft-disabled B recorded: $WHY"; return 1; }
	emit a 1 1 e e e || return 1
	emit b 3 2 - - - || return 1
	put $A/trigger '!enable_event:user_events:ue_tools_b'
	# As for any event, removing the trigger after it fired leaves the
	# target enabled: B's bit stays set until B is disabled
	want_bits "0 1" || return 1
	[ "$(<$B/enable)" = 1 ] || { WHY="B enable reads $(<$B/enable)"; return 1; }
	put $B/enable 0
	want_bits "0 0" || return 1
	trace_has 2 "ue_tools_b: count=" && trace_has 1 "ue_tools_b: count=4"
}
check "enable_event trigger from ue_tools_a to ue_tools_b" t_enable_event

# An eprobe on a user event: its records name the event it probes, which
# the core looks up by the type id of that event's records
t_eprobe() {
	put $T/events/eprobes/ue_tools_ep/enable 1 || { WHY="enable"; return 1; }
	want_bits "1 0" || return 1
	emit a 7 1 p q r || return 1
	put $T/events/eprobes/ue_tools_ep/enable 0
	want_bits "0 0" || return 1
	trace_has 1 "ue_tools_ep: (user_events.ue_tools_a) count=7"
}
EPROBE='e:ue_tools_ep user_events.ue_tools_a count=$count:u32'
if { echo "$EPROBE" >> $T/dynamic_events; } 2>/dev/null; then
	put $T/trace ""
	check "an eprobe on ue_tools_a names it in its records" t_eprobe
	{ echo '-:eprobes/ue_tools_ep' >> $T/dynamic_events; } 2>/dev/null
else
	tap 4 "an eprobe on ue_tools_a names it in its records" "no eprobes in this kernel"
fi

t_hist() {
	local h
	put $A/trigger 'hist:keys=msg:vals=hitcount,count:sort=msg' ||
		{ WHY="trigger write"; return 1; }
	want_bits "1 0" || return 1
	emit a 1 3 x x x || return 1
	emit a 4 5 abc abc abc || return 1
	h=$(<$A/hist)
	put $A/trigger '!hist:keys=msg:vals=hitcount,count:sort=msg'
	want_bits "0 0" || return 1
	# x: hits 3, sum of count 1+2+3; abc: hits 5, sum 4+..+8
	[[ $h =~ \{\ msg:\ *abc\ *\}\ *hitcount:\ *5\ *count:\ *30 ]] &&
	[[ $h =~ \{\ msg:\ *x\ *\}\ *hitcount:\ *3\ *count:\ *6 ]] &&
	[[ $h == *"Hits: 8"* ]] && return 0
	WHY="hist: $(echo "$h" | grep -v '^#' | tr '\n' '|')"
	return 1
}
check "hist:keys=msg counts and sums what was written" t_hist

t_hist_dyn() {
	local h
	put $A/trigger 'hist:keys=dmsg,count' || { WHY="trigger write"; return 1; }
	want_bits "1 0" || return 1
	emit a 7 2 q dd rr || return 1
	h=$(<$A/hist)
	put $A/trigger '!hist:keys=dmsg,count'
	want_bits "0 0" || return 1
	[[ $h =~ dmsg:\ *dd\ *,?\ *count:\ *7\ *\}\ *hitcount:\ *1 ]] &&
	[[ $h == *"Hits: 2"* ]] && return 0
	WHY="hist: $(echo "$h" | grep -v '^#' | tr '\n' '|')"
	return 1
}
check "hist:keys=dmsg,count (__data_loc key)" t_hist_dyn

# A string key from a __rel_loc char[] field: its text, not its word
t_hist_rel() {
	local h
	put $A/trigger 'hist:keys=rmsg:vals=hitcount,count:sort=rmsg' ||
		{ WHY="trigger write refused"; return 1; }
	want_bits "1 0" || return 1
	emit a 1 3 m d r1 || return 1
	emit a 4 5 m d r22 || return 1
	h=$(<$A/hist)
	put $A/trigger '!hist:keys=rmsg:vals=hitcount,count:sort=rmsg'
	want_bits "0 0" || return 1
	# r1: hits 3, sum of count 1+2+3; r22: hits 5, sum 4+..+8
	[[ $h =~ \{\ rmsg:\ *r1\ *\}\ *hitcount:\ *3\ *count:\ *6 ]] &&
	[[ $h =~ \{\ rmsg:\ *r22\ *\}\ *hitcount:\ *5\ *count:\ *30 ]] &&
	[[ $h == *"Hits: 8"* ]] && return 0
	WHY="hist: $(echo "$h" | grep -v '^#' | tr '\n' '|')"
	return 1
}
check "hist:keys=rmsg (__rel_loc key)" t_hist_rel

reset
check "bits clear after the ftrace tests" want_bits "0 0"

# --- perf ------------------------------------------------------------------
if have perf; then
	t_perf_record() {
		local out
		rm -f /tmp/ue_tools.perf
		if ! perf record -q -e user_events:ue_tools_a -o /tmp/ue_tools.perf \
		     -- "$EMIT" once 40 3 pmsg pdyn prel > /tmp/ue_tools.log 2>&1; then
			WHY="perf record: $(tail -3 /tmp/ue_tools.log)"
			return 1
		fi
		out=$(perf script -i /tmp/ue_tools.perf 2>&1)
		TRACE=$out
		echo "# perf script: $(echo "$out" | head -1)"
		[ "$(count "ue_tools_a:")" = 3 ] &&
		[[ $out == *"count=41 msg=pmsg dmsg=pdyn rmsg=prel"* ]] && return 0
		WHY="perf script: $(echo "$out" | head -5 | tr '\n' '|')"
		return 1
	}
	check "perf record + perf script decode every field" t_perf_record
	check "bits clear after perf record" want_bits "0 0"

	t_perf_stat() {
		local l
		if ! perf stat -x, -e user_events:ue_tools_a -o /tmp/ue_tools.stat \
		     -- "$EMIT" once 1 7 s s s > /tmp/ue_tools.log 2>&1; then
			WHY="perf stat: $(tail -3 /tmp/ue_tools.log)"
			return 1
		fi
		while IFS= read -r l; do
			[[ $l == *user_events:ue_tools_a* ]] && break
		done < /tmp/ue_tools.stat
		[ "${l%%,*}" = 7 ] && return 0
		WHY="perf stat line '$l', expected 7"
		return 1
	}
	check "perf stat counts exactly the writes" t_perf_stat
else
	tap 4 "perf record + perf script decode every field" "perf not installed"
	tap 4 "bits clear after perf record" "perf not installed"
	tap 4 "perf stat counts exactly the writes" "perf not installed"
fi

# --- trace-cmd ---------------------------------------------------------------
if have trace-cmd; then
	t_tc_record() {
		local out
		rm -f /tmp/ue_tools.dat
		if ! trace-cmd record -q -e user_events:ue_tools_a -o /tmp/ue_tools.dat \
		     -- "$EMIT" once 50 4 tmsg tdyn trel > /tmp/ue_tools.log 2>&1; then
			WHY="trace-cmd record: $(tail -3 /tmp/ue_tools.log)"
			return 1
		fi
		out=$(trace-cmd report -i /tmp/ue_tools.dat 2>&1)
		TRACE=$out
		echo "# trace-cmd report: $(echo "$out" | tail -1)"
		[ "$(count "ue_tools_a:")" = 4 ] &&
		[[ $out == *"count=52 msg=tmsg dmsg=tdyn rmsg=trel"* ]] && return 0
		WHY="trace-cmd report: $(echo "$out" | tail -5 | tr '\n' '|')"
		return 1
	}
	check "trace-cmd record + report decode every field" t_tc_record
	check "bits clear after trace-cmd record" want_bits "0 0"

	t_tc_check() {
		local out
		out=$(trace-cmd check-events 2>&1) ||
			{ WHY="exit $?: $(echo "$out" | tail -3)"; return 1; }
		[[ $out == *user_events* || $out == *ue_tools* ]] &&
			{ WHY="$(echo "$out" | grep -i user | head -3)"; return 1; }
		return 0
	}
	check "trace-cmd check-events parses the user event formats" t_tc_check
else
	tap 4 "trace-cmd record + report decode every field" "trace-cmd not installed"
	tap 4 "bits clear after trace-cmd record" "trace-cmd not installed"
	tap 4 "trace-cmd check-events parses the user event formats" "trace-cmd not installed"
fi

t_reset() {
	local l
	# Leave a mess behind, as a failed check could, and clean it up
	put $A/trigger 'hist:keys=count'
	put $A/trigger 'enable_event:user_events:ue_tools_b'
	put $A/filter 'count > 1'
	put $T/set_event_pid "$UE_PID"
	put $A/enable 1
	reset
	want_bits "0 0" || return 1
	while IFS= read -r l; do
		[[ $l == \#* || -z $l ]] || { WHY="trigger left: $l"; return 1; }
	done < <(echo "$(<$A/trigger)"; echo "$(<$B/trigger)")
	[ "$(<$A/filter)" = none ] || { WHY="filter left: $(<$A/filter)"; return 1; }
	[ -z "$(<$T/set_event_pid)" ] || { WHY="set_event_pid left"; return 1; }
	[ "$(<$T/tracing_on)" = 1 ] || { WHY="tracing_on is 0"; return 1; }
}
check "tracing state reset, bits clear" t_reset
[ "$N" = "$PLAN" ] || { echo "# ran $N checks, planned $PLAN"; FAILED=1; }
exit $FAILED
