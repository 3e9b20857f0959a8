#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest driver of make check's deb-rt-amd64-boot step (Debian's
# PREEMPT_RT kernel): every kselftest and KUnit suite as make test runs
# them (harness/guest/test.sh), then the longest preemption-off section
# while user_events works hardest: the preemptoff tracer watches
# stress_test (register, unregister, write, fork, exec, exit against
# ftrace and perf toggles) for UE_RT_STRESS_SECONDS (20).  Its trace goes
# to $UE_RESULTS/preemptoff.txt (where the section started and ended, and
# the functions in it), its length in microseconds to preemptoff.max.
# Lockdep and DEBUG_ATOMIC_SLEEP reports land in dmesg.txt, which the
# host scans as for make test.  Under TCG with lockdep every section is
# many times longer than on hardware: the length is for comparison, the
# functions say whose section it was.
R=$UE_RESULTS
T=/sys/kernel/tracing
uptime() { local u; u=$(</proc/uptime); echo "${u%% *}s"; }

bash "$UE_REPO/harness/guest/test.sh"

# The tracer runs in an instance of its own: the tests clear the top
# level's "trace", which with a latency tracer resets its max buffer too
if [[ $(<$T/available_tracers) == *preemptoff* ]] && mkdir $T/instances/rt 2>/dev/null; then
	T=$T/instances/rt
	echo "[guest] $(uptime) preemptoff tracer over stress_test"
	echo 0 > $T/tracing_max_latency
	echo preemptoff > $T/current_tracer || echo "[guest] preemptoff tracer busy: the stress run is not traced"
	mkdir -p /tmp/kselftest/rt-stress
	(cd /tmp/kselftest/rt-stress && UE_STRESS_SECONDS=${UE_RT_STRESS_SECONDS:-20} \
		timeout -k 5 600 "$UE_KSELFTEST/user_events/stress_test") > "$R/preemptoff-stress.tap" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok 1 stress_test under the preemptoff tracer" > "$R/rt.tap"
	else
		echo "not ok 1 stress_test under the preemptoff tracer (exit $rc)" > "$R/rt.tap"
	fi
	echo "$(<$T/tracing_max_latency)" > "$R/preemptoff.max"
	cat $T/trace > "$R/preemptoff.txt"
	echo nop > $T/current_tracer
	rmdir $T
else
	echo "no preemptoff tracer" > "$R/preemptoff.txt"
	echo "not ok 1 no preemptoff tracer, or no instance for it: stress_test did not run" > "$R/rt.tap"
fi
echo "[guest] $(uptime) saving dmesg"
dmesg > "$R/dmesg.txt"
