#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel of a flavour (debug|release): build/obj-FLAVOUR/arch/x86/boot/bzImage
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: kernel.sh debug|release}
obj=$(objdir "$flavour")
"$UE_REPO/harness/config.sh" "$flavour"
log "building $flavour kernel (O=${obj#"$UE_REPO"/}, -j$JOBS)"
start=$SECONDS
if ! make -s -C "$TREE" O="$obj" -j"$JOBS" bzImage >"$obj/build.log" 2>&1; then
	grep -E 'error|Error' -A5 "$obj/build.log" | head -60 >&2
	die "$flavour kernel build failed (full log: ${obj#"$UE_REPO"/}/build.log)"
fi
# Warnings in the files of the series (the rest of 6.1 is not ours)
grep -E 'warning:' "$obj/build.log" | grep -F -f "$B/linux.manifest" | head -20 >&2 || true
log "$flavour kernel ready in $((SECONDS - start)) s"
