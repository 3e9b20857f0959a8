#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest driver of "make mutate": harness/guest/test.sh on the kselftests
# that mutate.sh copied for the run (build/mutate/kselftest), after noting
# which mutant the kernel runs (the ue_mutant parameter).
p=/sys/module/kernel/parameters/ue_mutant
if [ -r $p ]; then
	echo "$(<$p)" > "$UE_RESULTS/ue_mutant"
fi
export UE_KSELFTEST=$UE_B/mutate/kselftest
exec bash "$UE_REPO/harness/guest/test.sh"
