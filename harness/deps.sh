#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs; a quick no-op when all
# of them are present.
set -euo pipefail

PKGS=(qemu-system-x86 linux-source-6.1 build-essential flex bison bc
      libelf-dev libssl-dev cpio rsync linux-perf trace-cmd gcc-multilib
      git patch xz-utils)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "[harness] installing: ${missing[*]}" >&2
[ "$(id -u)" -eq 0 ] || { echo "[harness] need root to install packages" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
