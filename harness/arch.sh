#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The user_events kselftests and KUnit suite on the other architectures a
# 6.1 vendor ships.  For each NAME: cross-build the debug kernel of the
# assembled tree (build/linux) into build/obj-NAME, build the kselftests
# statically with the cross toolchain into build/arch-NAME/, pack them
# with a static init (harness/guest/ue-init.c) into an initramfs, boot it
# under QEMU TCG and judge the results with results.sh.
#
#   arch.sh names [SPEC]      the architectures of SPEC ("x86_64,arm64",
#                             "all"; "check": make check's own; empty:
#                             the default of make test)
#   arch.sh config NAME       only the .config (build/obj-NAME/.config)
#   arch.sh build NAME        config, kernel, static kselftests, initramfs
#   arch.sh run NAME RESULTS  boot, run, judge into RESULTS/summary.txt
#   arch.sh one NAME RESULTS  build + run; on a build failure the summary
#                             says so (one failed check)
#   arch.sh test NAME...      "one" for each NAME into build/results-test-NAME,
#                             prints every test line, one "NAME: N passed,
#                             N failed, N skipped" line per NAME and the total
#
# NAME: arm64 (4 KiB pages), arm64-64k, s390x (big-endian), i386 (32-bit);
# for make check also arm64-perf-n (PERF_EVENTS=n, which x86 cannot
# build: it selects PERF_EVENTS; lockdep but no KASAN), and the ones of
# "names check", which make test never runs: armhf (ARMv7, LPAE,
# HIGHMEM: 2 GiB with ~768 MiB lowmem), ppc32 (32-bit big-endian
# e500mc, HIGHMEM), riscv64 (OpenSBI; no HIST_TRIGGERS in 6.1) and
# arm64-compat (COMPAT=y on a Cortex-A57: the *_32 programs, which make
# test builds with -m32 on x86_64, as static armhf binaries beside the
# 64-bit ones).  All with KASAN (generic, inline).
#
# Environment: UE_T, UE_TIMEOUT_FACTOR (as make test; armhf 6, ppc32 and
# riscv64 9 unless set: also scales fork_test's case timeouts), UE_ARCH_TIMEOUT
# (limit of one guest run in seconds, 3000; armhf 5400, ppc32 and riscv64
# 7200), UE_SMP (2), UE_MEM (2G),
# UE_CMDLINE (extra kernel parameters), UE_FUZZ_ITERS (30000 here),
# UE_CCACHE_DIR (~/.cache/ue-ccache), UE_JOBS.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ALL_ARCHES="arm64 arm64-64k s390x i386"
# make check's steps only (harness/check.sh), never in make test's "all"
CHECK_ARCHES="armhf ppc32 riscv64 arm64-compat"
# What "make test" runs without ARCH=: see README.md for the timings
DEFAULT_ARCHES="x86_64 arm64"
CONFIGS=$UE_REPO/harness/configs

export CCACHE_DIR=${UE_CCACHE_DIR:-$HOME/.cache/ue-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}

# arch_vars NAME: the kernel ARCH, toolchain, image and QEMU of NAME
arch_vars()
{
	name=$1
	frags=("$CONFIGS/arch-guest.config")
	late=() deps=(cross) compat_cross='' compat_karch='' highmem='' tfactor='' atimeout=''
	cpus=2
	case $name in
	arm64|arm64-64k|arm64-perf-n|arm64-compat)
		karch=arm64 cross=aarch64-linux-gnu- target=Image
		image=arch/arm64/boot/Image console=ttyAMA0
		qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on)
		ninep=virtio-9p-device
		frags+=("$CONFIGS/arch-arm64.config")
		case $name in
		arm64-64k) frags+=("$CONFIGS/arch-arm64-64k.config" "$CONFIGS/arch-kasan.config") ;;
		arm64-perf-n) ;;
		arm64-compat)
			# a CPU with AArch32 at EL0
			qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57)
			frags+=("$CONFIGS/arch-arm64-compat.config" "$CONFIGS/arch-kasan.config")
			compat_cross=arm-linux-gnueabihf- compat_karch=arm
			deps+=(armhf)
			;;
		*) frags+=("$CONFIGS/arch-kasan.config") ;;
		esac
		;;
	s390x)
		karch=s390 cross=s390x-linux-gnu- target=bzImage
		image=arch/s390/boot/bzImage console=ttysclp0
		qemu=(qemu-system-s390x -M s390-ccw-virtio -cpu max)
		ninep=virtio-9p-ccw
		frags+=("$CONFIGS/arch-s390x.config" "$CONFIGS/arch-kasan.config")
		;;
	i386)
		# no KASAN: x86 has it for 64-bit kernels only
		karch=i386 cross=i686-linux-gnu- target=bzImage
		image=arch/x86/boot/bzImage console=ttyS0
		qemu=(qemu-system-i386 -M pc -cpu max)
		ninep=virtio-9p-pci
		frags+=("$CONFIGS/arch-i386.config")
		;;
	armhf)
		# ARMv7 with LPAE, HIGHMEM: 2 GiB of which lowmem is ~768 MiB
		karch=arm cross=arm-linux-gnueabihf- target=zImage
		image=arch/arm/boot/zImage console=ttyAMA0
		qemu=(qemu-system-arm -M virt -cpu cortex-a15)
		ninep=virtio-9p-device
		frags+=("$CONFIGS/arch-armhf.config" "$CONFIGS/arch-kasan.config")
		deps+=(armhf)
		tfactor=6 atimeout=5400
		highmem=1
		;;
	ppc32)
		# 32-bit big-endian Book E: QEMU's generic e500 board, which
		# loads the ELF kernel itself (PowerMac's OpenBIOS never got
		# a KASAN kernel to print a line)
		karch=powerpc cross=powerpc-linux-gnu- target=vmlinux
		image=vmlinux console=ttyS0
		qemu=(qemu-system-ppc -M ppce500 -cpu e500mc)
		ninep=virtio-9p-pci
		frags+=("$CONFIGS/arch-ppc32.config" "$CONFIGS/arch-kasan.config")
		deps+=(ppc32)
		tfactor=9 atimeout=7200
		highmem=1
		;;
	riscv64)
		karch=riscv cross=riscv64-linux-gnu- target=Image
		image=arch/riscv/boot/Image console=ttyS0
		qemu=(qemu-system-riscv64 -M virt -bios default)
		ninep=virtio-9p-device
		frags+=("$CONFIGS/arch-riscv64.config" "$CONFIGS/arch-kasan.config")
		deps+=(riscv64)
		tfactor=9 atimeout=7200
		late+=("$CONFIGS/arch-riscv64-late.config")
		;;
	*)
		die "unknown architecture '$name' (known: x86_64 $ALL_ARCHES arm64-perf-n $CHECK_ARCHES)"
		;;
	esac
	frags+=("$TREE/tools/testing/selftests/user_events/config"
		"$CONFIGS/arch-debug.config")
	[ "$name" = arm64-perf-n ] && frags+=("$CONFIGS/arch-perf-n.config")
	frags+=(${late[@]+"${late[@]}"})
	obj=$B/obj-$name
	ad=$B/arch-$name
	kmake=(make -C "$TREE" O="$obj" ARCH="$karch" CROSS_COMPILE="$cross"
	       CC="ccache ${cross}gcc")
}

names()
{
	local spec=${1:-$DEFAULT_ARCHES} a out=()
	for a in ${spec//,/ }; do
		case $a in
		all) out+=(x86_64 $ALL_ARCHES) ;;
		check) out+=($CHECK_ARCHES) ;;
		x86_64|x86|amd64) out+=(x86_64) ;;
		aarch64) out+=(arm64) ;;
		s390) out+=(s390x) ;;
		x86_32|i686) out+=(i386) ;;
		*) (arch_vars "$a") || exit 1; out+=("$a") ;;
		esac
	done
	# unique, in the order given
	printf '%s\n' "${out[@]}" | awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//'
	echo
}

# tinyconfig + fragments (a later fragment overrides an earlier one),
# then every value requested last must be in the final .config; obj/.config
# is replaced only when it changes, so an unchanged config rebuilds nothing
config()
{
	local kc=$B/kconfig-$name f line got sym bad=0
	local -A want from
	mkdir -p "$kc" "$obj"
	"${kmake[@]}" O="$kc" -s tinyconfig >"$kc/make.log" 2>&1 ||
		{ cat "$kc/make.log" >&2; return 1; }
	"$TREE/scripts/kconfig/merge_config.sh" -m -O "$kc" "$kc/.config" "${frags[@]}" \
		>"$kc/merge.log" 2>&1 || { cat "$kc/merge.log" >&2; return 1; }
	"${kmake[@]}" O="$kc" -s olddefconfig >>"$kc/make.log" 2>&1 ||
		{ cat "$kc/make.log" >&2; return 1; }
	for f in "${frags[@]}"; do
		while IFS= read -r line; do
			if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]] ||
			   [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
				want[${BASH_REMATCH[1]}]=$line from[${BASH_REMATCH[1]}]=${f##*/}
			fi
		done < "$f"
	done
	for sym in "${!want[@]}"; do
		line=${want[$sym]}
		if [[ $line == \#* ]]; then
			grep -q "^$sym=" "$kc/.config" || continue
		else
			grep -qxF -- "$line" "$kc/.config" && continue
		fi
		got=$(grep -E "^(# )?${sym}[= ]" "$kc/.config" || echo absent)
		log "$name config: requested '$line' (${from[$sym]}), got '$got'"
		bad=1
	done
	[ $bad -eq 0 ] || return 1
	if ! cmp -s "$kc/.config" "$obj/.config"; then
		cp "$kc/.config" "$obj/.config"
		log "$name: .config updated"
	fi
}

# Warnings of the build log in the files of the series: ours fail the
# build, the others (6.1 code in files we patch) are listed
check_warnings()
{
	local w
	w=$(grep -E '(warning|error):' "$obj/build.log" | grep -E 'trace_events_user|user_events\.h' | sort -u)
	grep -E 'warning:' "$obj/build.log" | grep -F -f "$B/linux.manifest" |
		grep -vE 'trace_events_user|user_events\.h' | sort -u | head -20 | sed 's/^/[harness] (6.1) /' >&2
	if [ -n "$w" ]; then
		printf '%s\n' "$w" >&2
		log "$name: warnings in the user_events files"
		return 1
	fi
}

# The compat programs (the ones the selftests Makefile builds with -m32
# for an x86_64 compiler), static, with the 32-bit compiler and uapi
# headers, into the list before security_test (which scans the kernel
# log the others leave), as on x86_64
COMPAT_PROGS="abi_test compat_test model_test bitlayout_test"
build_compat()
{
	local src=$TREE/tools/testing/selftests/user_events p list=$ad/kselftest/kselftest-list.txt
	rm -rf "$ad/headers32"
	"${kmake[@]}" -s O="$ad/headers32-obj" ARCH="$compat_karch" CROSS_COMPILE="$compat_cross" \
		CC="${compat_cross}gcc" headers_install INSTALL_HDR_PATH="$ad/headers32" \
		>"$ad/headers32.log" 2>&1 ||
		{ cat "$ad/headers32.log" >&2; log "$name: 32-bit headers_install failed"; return 1; }
	for p in $COMPAT_PROGS; do
		"${compat_cross}gcc" -static -Wl,-no-as-needed -Wall -isystem "$ad/headers32/include" \
			"$src/$p.c" -lrt -lpthread -lm -o "$ad/kselftest/user_events/${p}_32" \
			>>"$ad/kselftest.log" 2>&1 ||
			{ cat "$ad/kselftest.log" >&2; log "$name: building ${p}_32 failed"; return 1; }
	done
	awk -v progs="$COMPAT_PROGS" '/^user_events:security_test$/ {
		n = split(progs, p, " "); for (i = 1; i <= n; i++) print "user_events:" p[i] "_32" }
		{ print }' "$list" > "$list.new" && mv "$list.new" "$list"
	grep -q '_32$' "$list" || { log "$name: no compat program in the list"; return 1; }
}

build()
{
	arch_vars "$1"
	local start=$SECONDS root try rc
	"$UE_REPO/harness/deps.sh" "${deps[@]}" || return 1
	config || { log "$name: config failed"; return 1; }
	log "building $name kernel (O=${obj#"$UE_REPO"/}, -j$JOBS, ccache $CCACHE_DIR)"
	# make resumes where it stopped when the compiler vanished under it
	# (an older deps.sh installing the gcc-multilib metapackage removes
	# the cross compilers): reinstall, go on
	for try in 1 2 3; do
		nice -n 10 "${kmake[@]}" -s -j"$JOBS" "$target" >"$obj/build.log" 2>&1
		rc=$?
		[ $rc -eq 0 ] && break
		command -v "${cross}gcc" >/dev/null && break
		log "$name: ${cross}gcc vanished during the build; reinstalling"
		"$UE_REPO/harness/deps.sh" "${deps[@]}" >&2 || break
	done
	if [ $rc -ne 0 ]; then
		grep -E 'error|Error' -A5 "$obj/build.log" | head -60 >&2
		log "$name kernel build failed (full log: ${obj#"$UE_REPO"/}/build.log)"
		return 1
	fi
	check_warnings || return 1
	log "$name kernel ready in $((SECONDS - start)) s"

	# The kselftests, static, against this architecture's uapi headers
	mkdir -p "$ad"
	rm -rf "$ad/headers" "$ad/kselftest"
	"${kmake[@]}" -s headers_install INSTALL_HDR_PATH="$ad/headers" >"$ad/headers.log" 2>&1 ||
		{ cat "$ad/headers.log" >&2; log "$name: headers_install failed"; return 1; }
	# The Makefile adds the -m32 variants for an x86_64 compiler only
	if ! make -s -C "$TREE/tools/testing/selftests" TARGETS=user_events ARCH="$karch" \
	     CROSS_COMPILE="$cross" LDFLAGS=-static \
	     O="$ad/kselftest-build" KHDR_INCLUDES="-isystem $ad/headers/include" \
	     INSTALL_PATH="$ad/kselftest" install >"$ad/kselftest.log" 2>&1; then
		cat "$ad/kselftest.log" >&2
		log "$name: building the kselftests failed"
		return 1
	fi
	grep -i 'warning' "$ad/kselftest.log" | grep -v 'statically linked' >&2
	[ -z "$compat_cross" ] || build_compat || return 1

	# The initramfs: static init, the kselftests and a static /bin/true
	# (stress_test execs it)
	root=$ad/initramfs
	rm -rf "$root"
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,run,results}
	"${cross}gcc" -static -O2 -Wall -Werror -o "$root/init" "$UE_REPO/harness/guest/ue-init.c" ||
		{ log "$name: building the init failed"; return 1; }
	printf 'int main(void) { return 0; }\n' |
		"${cross}gcc" -static -O2 -x c - -o "$root/bin/true" || return 1
	cp -a "$ad/kselftest" "$root/kselftest"
	[ "$(id -u)" -eq 0 ] && mknod "$root/dev/console" c 5 1
	(cd "$root" && find . | cpio -o -H newc --owner=0:0 --quiet) > "$ad/initramfs.cpio" || return 1
	log "$name userspace ready: $(grep -c . "$ad/kselftest/kselftest-list.txt") kselftest program(s), initramfs $(du -m "$ad/initramfs.cpio" | cut -f1) MiB"
}

# highmem_tap RESULTS: one TAP line, whether the 32-bit guest had high
# memory (its processes' pages, enable words included, mostly there)
highmem_tap()
{
	local kb
	kb=$(awk '$1 == "HighTotal:" { print $2 }' "$1/meminfo.txt" 2>/dev/null)
	if [ "${kb:-0}" -gt 0 ]; then
		echo "ok - high memory in use: HighTotal $kb kB of $(awk '$1 == "MemTotal:" { print $2 }' "$1/meminfo.txt") kB"
	else
		echo "not ok - high memory in use: HighTotal ${kb:-absent} (meminfo.txt)"
	fi
}

run()
{
	arch_vars "$1"
	local res=$2 cmdline v rc=0 limit=${UE_ARCH_TIMEOUT:-${atimeout:-3000}} start=$SECONDS why extra
	[ -f "$obj/$image" ] && [ -f "$ad/initramfs.cpio" ] || die "$name: not built (arch.sh build $name)"
	rm -rf "$res"
	mkdir -p "$res"
	res=$(cd "$res" && pwd)
	cmdline="console=$console panic=-1 UE_ARCH_NAME=$name tp_printk tp_printk_stop_on_boot"
	[ "$karch" = i386 ] && cmdline+=" pci=noacpi"
	for v in UE_T UE_TIMEOUT_FACTOR; do
		[ -n "${!v:-}" ] && cmdline+=" $v=${!v}"
	done
	# The slowest guests (TCG, KASAN, lockdep): more time for the same
	# work, for the programs and their cases (fork_test's)
	[ -n "${UE_TIMEOUT_FACTOR:-}" ] || [ -z "$tfactor" ] ||
		cmdline+=" UE_TIMEOUT_FACTOR=$tfactor"
	# and their registrations take longer: busy_sync_test's toggles meet
	# more of them (armhf: 15 of 100 where 10 are allowed)
	[[ ${UE_CMDLINE:-} == *UE_BUSY_LATE_MAX=* ]] || [ -z "$tfactor" ] ||
		cmdline+=" UE_BUSY_LATE_MAX=30"
	# These guests are about 3x slower than x86_64's: 30,000 fuzz_test
	# inputs keep its run near x86_64's minute
	[[ ${UE_CMDLINE:-} == *UE_FUZZ_ITERS=* ]] ||
		cmdline+=" UE_FUZZ_ITERS=${UE_FUZZ_ITERS:-30000}"
	# and model_test's two programs of 300 steps its two minutes
	[[ ${UE_CMDLINE:-} == *UE_MODEL_STEPS=* ]] ||
		cmdline+=" UE_MODEL_STEPS=${UE_MODEL_STEPS:-300}"
	cmdline+=" ${UE_CMDLINE:-}"
	log "booting $name kernel (TCG, timeout ${limit}s), console: ${res#"$UE_REPO"/}/console.log"
	timeout -k 10 "$limit" "${qemu[@]}" -smp "${UE_SMP:-$cpus}" -m "${UE_MEM:-2G}" \
		-nodefaults -no-reboot -display none -monitor none \
		-kernel "$obj/$image" -initrd "$ad/initramfs.cpio" -append "$cmdline" \
		-fsdev "local,id=results,path=$res,security_model=none" \
		-device "$ninep,fsdev=results,mount_tag=results" \
		-serial "file:$res/console.log" </dev/null >"$res/qemu.log" 2>&1 || rc=$?
	log "$name guest ran $((SECONDS - start)) s"
	if [ ! -f "$res/done" ]; then
		if [ $rc -eq 124 ]; then
			why="hung: killed after ${limit}s"
		elif grep -q 'Kernel panic' "$res/console.log"; then
			why="kernel panic"
		else
			why="QEMU exited with $rc before the guest finished"
		fi
		{
			echo "---- $name: last 50 console lines ($res/console.log) ----"
			tail -n 50 "$res/console.log"
			cat "$res/qemu.log"
			echo "----"
		} >&2
		log "$name guest run FAILED: $why"
	fi
	extra=()
	[ -z "$highmem" ] || { highmem_tap "$res" > "$res/highmem.tap"; extra+=("$res/highmem.tap"); }
	UE_KSELFTEST_LIST="$ad/kselftest/kselftest-list.txt" UE_RESULT_PREFIX="$name: " \
		"$UE_REPO/harness/results.sh" "$res" ${extra[@]+"${extra[@]}"} > "$res/judged.txt"
	rc=$?
	{ sed '$d' "$res/judged.txt"; echo "$name: $(tail -n 1 "$res/judged.txt")"; } > "$res/summary.txt"
	return $rc
}

# one NAME RESULTS: never leaves RESULTS without a summary
one()
{
	local name=$1 res=$2
	if ! build "$name"; then
		rm -rf "$res"
		mkdir -p "$res"
		printf '%s\n' "$name: not ok - $name kernel, kselftests and initramfs build (see the log above)" \
			"$name: 0 passed, 1 failed, 0 skipped" > "$res/summary.txt"
		return 1
	fi
	run "$name" "$res"
}

# Sum "NAME: N passed, N failed, N skipped" lines of summary files
total()
{
	local f p=0 fl=0 s=0 last
	for f in "$@"; do
		last=$(tail -n 1 "$f")
		if [[ $last =~ :\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
			p=$((p + BASH_REMATCH[1])) fl=$((fl + BASH_REMATCH[2])) s=$((s + BASH_REMATCH[3]))
		else
			fl=$((fl + 1))
		fi
	done
	echo "$p passed, $fl failed, $s skipped"
	[ $fl -eq 0 ]
}

cmd=${1:-}
shift || true
case $cmd in
names)
	names "${1:-}"
	;;
config)
	arch_vars "${1:?usage: arch.sh config NAME}"
	config
	;;
build)
	[ -n "${UE_LOCKED:-}" ] || lock_build
	"$UE_REPO/harness/deps.sh" cross || exit 1
	build "${1:?usage: arch.sh build NAME}"
	;;
run)
	[ -n "${UE_LOCKED:-}" ] || lock_build
	run "${1:?usage: arch.sh run NAME RESULTS}" "${2:?results dir}"
	;;
one)
	[ -n "${UE_LOCKED:-}" ] || lock_build
	"$UE_REPO/harness/deps.sh" cross || exit 1
	one "${1:?usage: arch.sh one NAME RESULTS}" "${2:?results dir}"
	;;
test)
	[ $# -gt 0 ] || die "usage: arch.sh test NAME..."
	if [ -z "${UE_LOCKED:-}" ]; then
		lock_build
		"$UE_REPO/harness/deps.sh" cross || exit 1
		"$UE_REPO/harness/assemble.sh" || exit 1
	fi
	sums=()
	for a in "$@"; do
		one "$a" "$B/results-test-$a"
		sums+=("$B/results-test-$a/summary.txt")
	done
	for f in "${sums[@]}"; do sed '$d' "$f"; done
	for f in "${sums[@]}"; do tail -n 1 "$f"; done
	total "${sums[@]}"
	;;
*)
	sed -n '3,/^set /s/^# \{0,1\}//p' "$0" | sed '$d' >&2
	exit 2
	;;
esac
