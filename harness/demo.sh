#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make demo": build the release kernel and the sample, boot, and run
# harness/guest/demo.sh with the console shown live.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lock_build

"$UE_REPO/harness/deps.sh"
"$UE_REPO/harness/assemble.sh"
"$UE_REPO/harness/kernel.sh" release
"$UE_REPO/harness/userspace.sh" release
# quiet: the kernel boot log would drown the narration (it is still in dmesg)
export UE_CMDLINE=${UE_CMDLINE-quiet}
"$UE_REPO/harness/vm.sh" --follow release "$UE_REPO/harness/guest/demo.sh" "$B/results-demo"
if ! "$UE_REPO/harness/scan-splats.sh" "$B/results-demo/dmesg.txt"; then
	log "the kernel reported problems during the demo (build/results-demo/dmesg.txt)"
	exit 1
fi
