#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make shell": an interactive root shell in a guest on the release
# kernel.  Exit the shell to power off; Ctrl-A X kills QEMU.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$UE_REPO/harness/deps.sh"
"$UE_REPO/harness/assemble.sh"
"$UE_REPO/harness/kernel.sh" release
"$UE_REPO/harness/userspace.sh" release
echo "[harness] guest shell: the sample is \$UE_SAMPLE, the kselftests are in \$UE_KSELFTEST; exit to power off"
exec "$UE_REPO/harness/vm.sh" --interactive release shell "$B/results-shell"
