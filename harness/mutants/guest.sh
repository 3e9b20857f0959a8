#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In-guest driver of "make mutate": for each line "N NAME PROGS" of the
# plan (build/mutate/plan.txt, written by mutate.sh), turn mutant N on
# (the ue_mutant parameter), run harness/guest/test.sh on PROGS (the
# comma-separated kselftest programs, from build/mutate/kselftest) with
# its results in $UE_RESULTS/N-NAME, turn it off again.  dmesg is cleared
# before each mutant, so each one's dmesg.txt holds only its messages.
# N-NAME/done marks a mutant whose run completed: the host judges those,
# takes a started one without it as killed by a guest that died, and
# boots again for the rest.
p=/sys/module/kernel/parameters/ue_mutant
plan=$UE_B/mutate/plan.txt
export UE_KSELFTEST=$UE_B/mutate/kselftest UE_SKIP_KMEMLEAK=1
top=$UE_RESULTS
uptime() { local u; u=$(</proc/uptime); echo "${u%% *}s"; }

[ -w $p ] || { echo "[guest] no writable $p: not the mutant kernel"; exit 1; }
while read -r n name progs; do
	d=$top/$n-$name
	mkdir -p "$d"
	echo "[guest] $(uptime) mutant $n $name: $progs"
	echo "$n" > $p
	echo "$(<$p)" > "$d/ue_mutant"
	dmesg -C
	UE_RESULTS=$d UE_T=$progs bash "$UE_REPO/harness/guest/test.sh"
	echo 0 > $p
	: > "$d/done"
done < "$plan"
