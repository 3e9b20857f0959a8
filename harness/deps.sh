#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs; a quick no-op when all
# of them are present.
#
#   deps.sh export           only what "make series LINUX=" (or
#                            DEBIAN_VERSION=) needs to export: git, patch,
#                            perl (checkpatch), python3, xz-utils
#   deps.sh [docs] [bench] [series] [cross] [check] [distro] [armhf] [ppc32]
#           [riscv64]        the base set, plus
#                            Sphinx for "make docs", gnuplot for "make bench",
#                            ccache for the per-patch builds of "make series",
#                            cross compilers and QEMUs for harness/arch.sh and
#                            clang, sparse, coccinelle for "make check"
#                            (and ocaml-nox: coccicheck's scripts in OCaml need
#                            ocamlopt, which coccinelle only recommends), and
#                            Debian's kernel configurations, pahole (their
#                            DEBUG_INFO_BTF) and dpkg-dev (apt-get source) for
#                            make check's deb-* steps; armhf, ppc32, riscv64:
#                            the cross compiler, libc and QEMU of that guest
#                            of make check (arm64-compat needs armhf's)
set -euo pipefail

# gcc-12-multilib, not the gcc-multilib metapackage: that one conflicts
# with every cross compiler (the "cross" group). bpftrace: deploy_test
# attaches it to a user event, which must fail. dwarves: pahole, which a
# config with DEBUG_INFO_BTF (Debian's) needs to link
PKGS=(qemu-system-x86 linux-source-6.1 build-essential flex bison bc
      libelf-dev libssl-dev cpio rsync linux-perf trace-cmd gcc-12-multilib
      git patch xz-utils python3 ccache dwarves bpftrace)
if [ "${1:-}" = export ]; then
	PKGS=(git patch perl python3 xz-utils)
	shift
fi
for extra in "$@"; do
	case $extra in
	docs) PKGS+=(python3-sphinx python3-sphinx-rtd-theme) ;;
	series) PKGS+=(ccache) ;;
	bench) PKGS+=(gnuplot-nox python3) ;;
	cross) PKGS+=(ccache gcc-aarch64-linux-gnu gcc-s390x-linux-gnu gcc-i686-linux-gnu
		      libc6-dev-arm64-cross libc6-dev-s390x-cross libc6-dev-i386-cross
		      qemu-system-arm qemu-system-misc) ;;
	# make check's other guests (harness/arch.sh armhf, ppc32, riscv64,
	# arm64-compat); qemu-system-data has riscv's OpenSBI (-bios default)
	armhf) PKGS+=(gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-system-arm) ;;
	ppc32) PKGS+=(gcc-powerpc-linux-gnu libc6-dev-powerpc-cross qemu-system-ppc) ;;
	riscv64) PKGS+=(gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-system-misc
			qemu-system-data) ;;
	check) PKGS+=(ccache clang lld llvm sparse coccinelle ocaml-nox) ;;
	distro) PKGS+=(linux-config-6.1 dwarves dpkg-dev) ;;
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
# another harness run may be installing too: wait for its dpkg lock
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}"
