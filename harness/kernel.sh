#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel of a flavour (debug|release): build/obj-FLAVOUR/arch/x86/boot/bzImage
#
# CC="ccache gcc" (lib.sh: UE_CCACHE, UE_CCACHE_DIR).  Progress: objects
# compiled of the objects of a full build (counted after the last build
# of this flavour), on a terminal every few seconds, else once a minute.
# A warning about a file of the series (build/linux.manifest) fails the
# build like -Werror would; those files are touched so that the next
# build compiles them, and shows the warning, again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: kernel.sh debug|release}
obj=$(objdir "$flavour")
"$UE_REPO/harness/config.sh" "$flavour"
# objects of a full build: measured after each build, guessed before the first
case $flavour in debug) total=1300 ;; release) total=1000 ;; *) total=0 ;; esac
[ ! -f "$obj/.ue-objects" ] || total=$(cat "$obj/.ue-objects")
log "building $flavour kernel (O=${obj#"$UE_REPO"/}, -j$JOBS, CC=$KCC)"
start=$SECONDS
if ! make -C "$TREE" O="$obj" CC="$KCC" -j"$JOBS" bzImage 2>&1 |
     kbuild_progress "$obj/build.log" "$flavour kernel" "$total"; then
	grep -E 'error|Error' -A5 "$obj/build.log" | head -60 >&2
	die "$flavour kernel build failed (full log: ${obj#"$UE_REPO"/}/build.log)"
fi
find "$obj" -name '.*.o.cmd' | wc -l > "$obj/.ue-objects"

# Warnings in the files of the series fail the build (the rest of 6.1 is not ours)
warn=$(our_warnings "$obj/build.log" "$TREE")
if [ -n "$warn" ]; then
	cut -f2- <<< "$warn" | head -40 >&2
	cut -f1 <<< "$warn" | sort -u | while IFS= read -r f; do touch "$TREE/$f"; done
	die "$flavour kernel: $(wc -l <<< "$warn") compiler warning(s) in the series' files (see above; full log: ${obj#"$UE_REPO"/}/build.log)"
fi
log "$flavour kernel ready in $((SECONDS - start)) s ($(cat "$obj/build.log.count") objects compiled)"
