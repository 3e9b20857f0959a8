#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build what runs inside the guest, against our uapi headers:
#   build/headers/include        make headers_install
#   build/kselftest/             kselftest install (run_kselftest.sh,
#                                kselftest-list.txt, user_events/<tests>)
#   build/samples/example        the sample (build/samples32/example: -m32)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:-debug}
obj=$(objdir "$flavour")
[ -f "$obj/.config" ] || "$UE_REPO/harness/config.sh" "$flavour"

make -s -C "$TREE" O="$obj" headers_install INSTALL_HDR_PATH="$B/headers" >"$B/headers.log" 2>&1 ||
	{ cat "$B/headers.log"; die "headers_install failed"; }

# The kselftests, with the kselftest makefiles
rm -rf "$B/kselftest"
if [ -f "$TREE/tools/testing/selftests/user_events/Makefile" ]; then
	if ! make -s -C "$TREE/tools/testing/selftests" TARGETS=user_events \
	     O="$B/kselftest-build" KHDR_INCLUDES="-isystem $B/headers/include" \
	     INSTALL_PATH="$B/kselftest" install >"$B/kselftest.log" 2>&1; then
		cat "$B/kselftest.log" >&2
		die "building the user_events kselftests failed"
	fi
	grep -i 'warning' "$B/kselftest.log" >&2 || true
else
	log "WARNING: no tools/testing/selftests/user_events/Makefile: no kselftests"
	mkdir -p "$B/kselftest"
	: > "$B/kselftest/kselftest-list.txt"
fi

# The sample, 64-bit and 32-bit (the compat ABI)
rm -rf "$B/samples" "$B/samples32"
if [ -f "$TREE/samples/user_events/Makefile" ]; then
	make -s -C "$TREE/samples/user_events" KHDR_INCLUDES="-I$B/headers/include" \
		OUTPUT="$B/samples" || die "building the sample failed"
	make -s -C "$TREE/samples/user_events" KHDR_INCLUDES="-I$B/headers/include" \
		OUTPUT="$B/samples32" CFLAGS=-m32 >/dev/null 2>&1 ||
		log "WARNING: the 32-bit sample did not build"
fi
log "userspace ready: $(wc -l < "$B/kselftest/kselftest-list.txt") kselftest program(s)"
