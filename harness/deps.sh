#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs; a quick no-op when all
# of them are present.
#
#   deps.sh [docs] [bench] [series]   the base set, plus Sphinx for
#                            "make docs", gnuplot for "make bench" and
#                            ccache for the per-patch builds of "make series"
set -euo pipefail

PKGS=(qemu-system-x86 linux-source-6.1 build-essential flex bison bc
      libelf-dev libssl-dev cpio rsync linux-perf trace-cmd gcc-multilib
      git patch xz-utils)
for extra in "$@"; do
	case $extra in
	docs) PKGS+=(python3-sphinx python3-sphinx-rtd-theme) ;;
	series) PKGS+=(ccache) ;;
	bench) PKGS+=(gnuplot-nox python3) ;;
	*) echo "[harness] deps.sh: unknown group '$extra'" >&2; exit 2 ;;
	esac
done

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
