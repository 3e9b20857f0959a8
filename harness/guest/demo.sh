#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A narrated tour of user_events, run inside the guest by "make demo".
#
# Expects: the patched kernel, tracefs mounted, a writable /tmp (cwd),
# and the sample binary in $UE_SAMPLE (samples/user_events/example).
# perf and trace-cmd come from the host root, if it has them.
#
# Every step tolerates failure: what does not work yet is reported as
# "NOT YET: ..." and the tour goes on.

set -u

TRACEFS=${TRACEFS:-/sys/kernel/tracing}
SAMPLE=${UE_SAMPLE:-./example}
SAMPLE32=${UE_SAMPLE32:-}
EVENT_DIR=$TRACEFS/events/user_events/test
LOG=/tmp/ue-sample.log
export HOME=/tmp

step_no=0
not_yet=0
bg_pid=
seen_event=

step()
{
	step_no=$((step_no + 1))
	printf '\n=== Step %d: %s ===\n' "$step_no" "$*"
}

say()
{
	printf '%s\n' "$*" | fold -s -w 76 | sed 's/^/  /; s/ *$//'
}

# Show a command, then run it
run()
{
	printf '$ %s\n' "$*"
	"$@"
}

# Show and do "echo VALUE > FILE"
write_file()
{
	printf '$ echo %s > %s\n' "$1" "$2"
	echo "$1" > "$2"
}

notyet()
{
	not_yet=$((not_yet + 1))
	printf 'NOT YET: %s\n' "$*"
}

# wait_for SECONDS COMMAND...: poll every 100 ms until COMMAND succeeds
wait_for()
{
	local tries=$(($1 * 10))

	shift
	while ! "$@" 2>/dev/null; do
		tries=$((tries - 1))
		[ "$tries" -gt 0 ] || return 1
		sleep 0.1
	done
}

# Show the last lines the background sample printed
show_sample()
{
	printf '$ tail -n %d %s\n' "$1" "$LOG"
	tail -n "$1" "$LOG" | sed 's/^/  | /'
}

# The state of the enable bit, as last printed by the sample
# shellcheck disable=SC2317 # called through wait_for
sample_says()
{
	tail -n 1 "$LOG" | grep -q "enabled=$1"
}

sample_running()
{
	[ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null
}

have_event()
{
	[ -d "$EVENT_DIR" ] && seen_event=1
}

# The offset of the first field after the common header in a format
# file: where the payload starts (8 on most kernels, 12 on PREEMPT_RT)
payload_offset()
{
	local line off
	while IFS= read -r line; do
		case $line in
		*field:*common_*) ;;
		*field:*offset:*)
			off=${line#*offset:}
			echo "${off%%;*}"
			return 0
			;;
		esac
	done < "$1"
	return 1
}

have_tool()
{
	command -v "$1" >/dev/null 2>&1
}

# shellcheck disable=SC2317 # called through the EXIT trap
cleanup()
{
	if sample_running; then
		kill "$bg_pid" 2>/dev/null
		wait "$bg_pid" 2>/dev/null
	fi
	[ -w "$EVENT_DIR/enable" ] && echo 0 > "$EVENT_DIR/enable"
}
trap cleanup EXIT

printf '\n##### user_events demo on %s #####\n' "$(uname -r)"
say "A process defines a trace event, learns through one bit in its own memory whether anybody listens, and writes records only then."

step "Is the interface there?"
if run ls -l "$TRACEFS/user_events_data" "$TRACEFS/user_events_status"; then
	say "Both files exist: the kernel has CONFIG_USER_EVENTS."
else
	notyet "no user_events files in $TRACEFS; nothing else can work"
	exit 0
fi
if [ ! -x "$SAMPLE" ]; then
	notyet "sample binary '$SAMPLE' missing (set UE_SAMPLE)"
fi

step "Start the sample: it registers 'test u32 count; char[16] msg'"
say "It asks the kernel to keep bit 31 of its variable 'enabled' up to date, then checks the bit every 300 ms and writes only while it is set."
printf '$ %s -i 300 > %s &\n' "$SAMPLE" "$LOG"
"$SAMPLE" -i 300 > "$LOG" 2>&1 &
bg_pid=$!
if wait_for 3 grep -q registered "$LOG"; then
	printf '$ head -n 1 %s\n' "$LOG"
	head -n 1 "$LOG" | sed 's/^/  | /'
else
	sleep 0.5
	show_sample 5
	notyet "the sample could not register its event"
fi

step "The event is listed in user_events_status and dynamic_events"
run cat "$TRACEFS/user_events_status" || notyet "user_events_status unreadable"
if ! grep -qx 'test' "$TRACEFS/user_events_status" 2>/dev/null; then
	notyet "'test' not listed as an idle event"
fi
printf '$ grep ^u: %s/dynamic_events\n' "$TRACEFS"
grep '^u:' "$TRACEFS/dynamic_events" || notyet "no u: line in dynamic_events"

step "It is an ordinary trace event with a format file"
if have_event; then
	run cat "$EVENT_DIR/format"
	if off=$(payload_offset "$EVENT_DIR/format"); then
		say "The payload the sample writes starts at offset $off, after the common header."
	else
		notyet "no field after the common header in the format file"
	fi
else
	notyet "no $EVENT_DIR directory"
fi

step "Nobody is tracing, so the bit is 0 and nothing is written"
wait_for 3 sample_says 0 || notyet "the sample does not report enabled=0"
show_sample 2

step "Enable the event through ftrace"
echo > "$TRACEFS/trace" 2>/dev/null
if have_event && write_file 1 "$EVENT_DIR/enable"; then
	say "The kernel sets bit 31 in the sample's memory; the sample starts writing."
	wait_for 3 sample_says 1 || notyet "the sample does not see enabled=1"
	sleep 0.7
	show_sample 3
	grep -q 'wrote count' "$LOG" ||
		notyet "the writes fail: $(grep -m 1 -o 'write failed: .*' "$LOG")"
	run cat "$TRACEFS/user_events_status"
else
	notyet "cannot enable user_events:test"
fi

step "The records in the trace buffer, decoded field by field"
printf '$ grep test: %s/trace\n' "$TRACEFS"
if grep ' test: ' "$TRACEFS/trace"; then
	say "count is printed as a number and msg as a string, as the format says."
else
	notyet "no test records in $TRACEFS/trace"
fi

step "A 32-bit program uses the same ABI"
if [ -z "$SAMPLE32" ] || [ ! -x "$SAMPLE32" ]; then
	notyet "no 32-bit sample (UE_SAMPLE32)"
elif ! have_event; then
	notyet "no event for the 32-bit sample to join"
else
	say "While ftrace still listens, a -m32 build of the sample registers the same event (through compat_ioctl) and writes three records."
	printf '$ %s -n 3 -i 100\n' "$SAMPLE32"
	"$SAMPLE32" -n 3 -i 100 &
	pid32=$!
	if ! wait "$pid32"; then
		notyet "the 32-bit sample failed"
	else
		printf '$ grep -- "-%d .* test: " %s/trace\n' "$pid32" "$TRACEFS"
		grep -- "-$pid32 .* test: " "$TRACEFS/trace" ||
			notyet "no record of the 32-bit sample in the trace"
	fi
fi

step "Disable it again: the bit goes back to 0"
if have_event && write_file 0 "$EVENT_DIR/enable"; then
	wait_for 3 sample_says 0 || notyet "the sample still sees enabled=1"
	show_sample 2
else
	notyet "cannot disable user_events:test"
fi

step "perf record: another instance of the sample, under perf"
if ! have_tool perf; then
	notyet "perf is not installed on the host"
elif ! have_event; then
	notyet "no event for perf to attach to"
else
	say "Opening the perf event sets the bit in every process that registered the event, so the new instance writes from its first iteration."
	run perf record -q -e user_events:test -o /tmp/perf.data -- \
		"$SAMPLE" -n 5 -i 100 -q || notyet "perf record failed"
	if [ -s /tmp/perf.data ]; then
		printf '$ perf script -i /tmp/perf.data\n'
		out=$(perf script -i /tmp/perf.data 2>&1)
		printf '%s\n' "$out"
		grep -q 'count=' <<< "$out" ||
			notyet "perf script shows no decoded test records"
	fi
fi

step "trace-cmd record and report"
if ! have_tool trace-cmd; then
	notyet "trace-cmd is not installed on the host"
elif ! have_event; then
	notyet "no event for trace-cmd to enable"
else
	# -F: only the instance run here, not the background sample
	printf '$ trace-cmd record -q -F -e user_events:test -o /tmp/trace.dat %s -n 5 -i 100 -q\n' \
		"$SAMPLE"
	if trace-cmd record -q -F -e user_events:test -o /tmp/trace.dat \
		"$SAMPLE" -n 5 -i 100 -q > /tmp/trace-cmd.log 2>&1; then
		sed 's/^/  | /' /tmp/trace-cmd.log
		printf '$ trace-cmd report -i /tmp/trace.dat\n'
		out=$(trace-cmd report -i /tmp/trace.dat 2>&1)
		printf '%s\n' "$out" | grep -v '^cpus=\|^CPU [0-9]* is empty'
		grep -q 'count=' <<< "$out" ||
			notyet "trace-cmd report shows no decoded test records"
	else
		sed 's/^/  | /' /tmp/trace-cmd.log
		notyet "trace-cmd record failed"
	fi
fi

step "Nothing attached any more: the bit is 0 again"
wait_for 3 sample_says 0 || notyet "the sample does not report enabled=0"
show_sample 1
run cat "$TRACEFS/user_events_status"

step "Stop the sample: the event deletes itself"
say "The last reference goes away when the sample unregisters its bit and closes its file; the kernel then removes the event shortly after."
if sample_running; then
	run kill -TERM "$bg_pid"
	wait "$bg_pid" 2>/dev/null
	bg_pid=
	show_sample 1
fi
if [ -z "$seen_event" ]; then
	notyet "the event never existed"
elif wait_for 3 test ! -d "$EVENT_DIR"; then
	say "events/user_events/test is gone."
	run cat "$TRACEFS/user_events_status"
else
	notyet "events/user_events/test still exists after the sample exited"
fi

printf '\n##### demo done: %d step(s), %d NOT YET #####\n' "$step_no" "$not_yet"
exit 0
