# SPDX-License-Identifier: GPL-2.0
# Common settings for the harness scripts; sourced, never run.
# Every path is derived from the location of the repo, so a fresh clone
# anywhere works.

UE_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$UE_REPO/build
PRISTINE=$B/pristine/linux-6.1
TREE=$B/linux
SRC_TARBALL=${UE_SRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
JOBS=${UE_JOBS:-$(nproc)}

# obj dir of a flavour: debug or release
objdir() { echo "$B/obj-$1"; }

log() { printf '[harness] %s\n' "$*" >&2; }
die() { printf '[harness] ERROR: %s\n' "$*" >&2; exit 1; }

# One harness run per build/ at a time (they share the tree and obj dirs)
lock_build()
{
	mkdir -p "$B"
	exec 9> "$B/.lock"
	if ! flock -n 9; then
		echo "[harness] waiting for another harness run using $B" >&2
		flock 9
	fi
}
