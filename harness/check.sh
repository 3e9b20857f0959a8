#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make check": the build matrix a 0-day robot runs on a posted series, on
# the assembled tree (build/linux) with CONFIG_USER_EVENTS=y, plus the
# guests "make test" leaves out.  One line per step; a build fails on any
# warning in our files (kernel/trace/trace_events_user*.c, the two
# user_events.h, and the lines our patches add); warnings elsewhere in 6.1
# are listed (build/check/NAME.others), not failed on.  Ends with one
# "N passed, N failed, N skipped" line; exits 0 only if nothing failed.
#
# Steps, in this order (UE_CHECK=name[,name] runs only these):
#   doc-links   harness/doccheck.py: the relative links of README.md and
#               docs/*.md, and make help against README.md's target list
#   w1          GCC W=1 build (bzImage) of the release config + KUnit
#   sparse      sparse (C=2) on our objects and the files our patches touch
#   cocci       coccicheck (MODE=report) on the same files
#   kdoc        scripts/kernel-doc -v -none on our files
#   clang       LLVM=1 W=1 build of the same config
#   smp-n preempt                          x86_64 variants: build, boot, every kselftest
#   compat-n hist-n kunit-m modules-n      x86_64 variants: build
#   rand-SEED   3 randconfigs (x86; init, mm, kernel, trace, lib/Kconfig.debug
#               and arch/x86 options random, the rest tinyconfig, USER_EVENTS=y
#               forced); UE_CHECK_SEEDS="S1 S2 S3" (or "random"); replay one with
#               make -C build/linux O=DIR KCONFIG_SEED=S \
#                    KCONFIG_ALLCONFIG=build/check/rand.allconfig randconfig
#   ver-VERSION one per Debian linux-source-6.1 version (at least
#               6.1.170-3 6.1.176-1 6.1.187-1 6.1.190-1 6.1.192-2, and every
#               version apt-cache madison lists): make series
#               DEBIAN_VERSION=VERSION, git am on a copy of that tree, the
#               result is the tree + overlay + patches and nothing else, and
#               the series' C files (ours, fork.c and the kernel/trace files
#               the patches change) build with W=1 and no warning in our
#               code, guest config + USER_EVENTS=y (UE_CHECK=ver-6.1.170-3;
#               UE_CHECK=versions: all of them)
#   arm64-perf-n  PERF_EVENTS=n (x86 selects PERF_EVENTS, so arm64): build,
#               boot, every C kselftest (harness/arch.sh)
#   arm64-64k s390x i386   the architectures make test does not run by
#               default (harness/arch.sh): debug build, boot, every C kselftest
#   armhf ppc32 riscv64 arm64-compat   make check's own guests (arch.sh
#               names check): ARMv7 with LPAE and HIGHMEM (2 GiB, ~768 MiB
#               lowmem; a check that HighTotal > 0), 32-bit big-endian
#               e500mc (HIGHMEM), riscv64, and 32-bit processes on arm64
#               (the *_32 programs as static armhf binaries); KASAN on all
#   deb-amd64 deb-cloud-amd64 deb-arm64 deb-rt-amd64 deb-rt-arm64
#               Debian's own configurations (package linux-config-6.1,
#               harness/distro.sh) with USER_EVENTS=y: the series' objects
#               and kernel/fork.o with W=1, no warning in our files; the
#               options olddefconfig changed besides USER_EVENTS are listed
#               (build/check/deb-NAME.changed).  The rt ones on Debian's
#               PREEMPT_RT tree (build/linux-rt: its debian/patches-rt/ on
#               pristine 6.1, then the series)
#   deb-cloud-amd64-boot   cloud-amd64 built whole without modules
#               (harness/configs/deb-boot.config), booted: every kselftest
#               and KUnit suite
#   deb-rt-amd64-boot      the same with rt-amd64 on the rt tree, plus lockdep
#               and DEBUG_ATOMIC_SLEEP (harness/configs/deb-rt-debug.config)
#   model       model_test and model_test_32 on make test's debug kernel,
#               UE_MODEL_CHECK_SECONDS (1800) each, from a random seed
#               (UE_MODEL_SEED= to replay one; the seed is in the step's line)
#   lockdown    the debug kernel of make test booted with lockdown=integrity
#               (a few kselftests, then raised to confidentiality at run
#               time) and with lockdown=confidentiality (tracefs empty,
#               no kselftest; harness/guest/lockdown.sh)
#
# Builds go through ccache (UE_CCACHE_DIR, ~/.cache/ue-ccache) at nice 10.
# The global build lock is held to assemble and for the x86_64 boots only.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

C=$B/check
mkdir -p "$C"
export CCACHE_DIR=${UE_CCACHE_DIR:-$HOME/.cache/ue-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
SEEDS=${UE_CHECK_SEEDS:-"11 22 33"}
[ "$SEEDS" = random ] && SEEDS="$RANDOM$RANDOM $RANDOM$RANDOM $RANDOM$RANDOM"
STEPS=(doc-links w1 sparse cocci kdoc clang smp-n preempt compat-n hist-n kunit-m modules-n)
for s in $SEEDS; do STEPS+=("rand-$s"); done
ARCHES=$("$UE_REPO/harness/arch.sh" names all)
for a in arm64-perf-n $ARCHES $("$UE_REPO/harness/arch.sh" names check); do
	[[ " $("$UE_REPO/harness/arch.sh" names "${UE_ARCH:-}") " == *" $a "* ]] || STEPS+=("$a")
done
DEB_CONFIGS=(amd64 cloud-amd64 arm64 rt-amd64 rt-arm64)
for d in "${DEB_CONFIGS[@]}"; do STEPS+=("deb-$d"); done
STEPS+=(deb-cloud-amd64-boot deb-rt-amd64-boot lockdown model)
# The kselftests of the lockdown=integrity boot: the ABI, ftrace, perf,
# dynamic_events, the unprivileged user and the tools
LOCKDOWN_T=abi_test,ftrace_test,perf_test,dyn_test,nonroot_test,tools_test.sh
OURS='kernel/trace/trace_events_user[^/]*\.c|include/(uapi/)?linux/user_events\.h'
OUR_C=(kernel/trace/trace_events_user.c kernel/trace/trace_events_user_kunit.c)

# Kconfig fragments of the x86_64 variants, after the release config +
# BASE_FRAG (KUnit, and event injection so that all our patched files build)
declare -A VARIANT=(
	[w1]=""
	[clang]=""
	[smp-n]="# CONFIG_SMP is not set"
	[preempt]=$'CONFIG_PREEMPT=y\nCONFIG_DEBUG_KERNEL=y\nCONFIG_DEBUG_ATOMIC_SLEEP=y'
	[compat-n]=$'# CONFIG_IA32_EMULATION is not set\n# CONFIG_X86_X32_ABI is not set\n# CONFIG_COMPAT is not set'
	[hist-n]="# CONFIG_HIST_TRIGGERS is not set"
	[kunit-m]=$'CONFIG_MODULES=y\nCONFIG_KUNIT=m\n# CONFIG_USER_EVENTS_KUNIT_TEST is not set'
	[modules-n]="# CONFIG_MODULES is not set"
)
BASE_FRAG=$'CONFIG_TRACE_EVENT_INJECT=y\nCONFIG_KUNIT=y\n# CONFIG_KUNIT_ALL_TESTS is not set\nCONFIG_USER_EVENTS_KUNIT_TEST=y'

pass=0 fail=0 skip=0 lines=()
result()	# result ok|fail|skip NAME TEXT
{
	case $1 in
	ok) pass=$((pass + 1)); lines+=("ok - check: $2 $3") ;;
	skip) skip=$((skip + 1)); lines+=("ok - check: $2 # SKIP $3") ;;
	*) fail=$((fail + 1)); lines+=("not ok - check: $2 $3") ;;
	esac
	log "${lines[-1]}"
}
# The global build lock, held only while this run needs build/linux to
# stay still or shares build/kselftest with make test
lock() { unset UE_LOCKED; lock_build; }
unlock() { exec 9>&-; unset UE_LOCKED; }
wanted() { [ -z "${UE_CHECK:-}" ] || [[ ",$UE_CHECK," == *",$1,"* ]] ||
	   [[ $1 == deb-* && ",$UE_CHECK," == *",deb,"* ]] ||
	   [[ $1 == ver-* && ",$UE_CHECK," == *",versions,"* ]]; }

# "path:line" of every line our patches add, numbered as in the assembled
# file: the diff of pristine and build/linux of each file they change (a
# file with several patches: the line numbers of all but the last patch
# are those of an earlier version of the file)
added_lines()	# [PRISTINE_TREE TREE]
{
	local f base=${1:-$PRISTINE} tree=${2:-$TREE}
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$UE_REPO"/patches/*.patch | sort -u |
	while IFS= read -r f; do
		[ -f "$base/$f" ] && [ -f "$tree/$f" ] || continue
		diff -U0 "$base/$f" "$tree/$f" | awk -v f="$f" '
			/^@@ / { split($3, a, ","); n = substr(a[1], 2); h = 1; next }
			h && /^\+/ { print f ":" n; n++ }'
	done
}

# The C files of the kernel our patches change
patched_c()
{
	sed -n 's|^+++ b/\(.*\.c\)\([[:space:]].*\)\{0,1\}$|\1|p' "$UE_REPO"/patches/*.patch |
		grep -v '^tools/' | sort -u
}

# judge LOG NAME [ADDED]: warnings (compiler, sparse, coccinelle,
# kernel-doc) in our files or added lines (those of ADDED, default the
# assembled tree's) go to NAME.ours (fail), the rest to NAME.others
judge()
{
	local log=$1 name=$2 added=${3:-$C/added-lines}
	[ -f "$added" ] || added_lines > "$added"
	awk -v ours="$OURS" -v o="$C/$name.ours" -v x="$C/$name.others" '
	FNR == NR { added[$0] = 1; next }
	/(warning|error|WARNING|ERROR)/ {
		line = $0
		sub(/^.*build\/linux(-rt)?\//, "", line); sub(/^(\.\.\/)+linux(-rt)?\//, "", line)
		sub(/^(\.\.\/|\.\/)+/, "", line)
		split(line, f, ":")
		if (f[1] ~ "^(" ours ")$" || (f[1] ":" f[2]) in added) print line > o
		else if (line ~ /^[^ :]+:[0-9]+:/) print line > x
	}' "$added" "$log"
	[ -f "$C/$name.others" ] && sort -u -o "$C/$name.others" "$C/$name.others"
	if [ -s "$C/$name.ours" ]; then
		sort -u "$C/$name.ours" | head -20 | sed 's/^/[check] /' >&2
		return 1
	fi
	return 0
}

others() { [ -s "$C/$1.others" ] && echo ", $(wc -l < "$C/$1.others") warning(s) elsewhere in 6.1 listed in ${C#"$UE_REPO"/}/$1.others"; }

# xconfig NAME FRAGMENT MAKEARGS...: tinyconfig + guest.config + the
# kselftest config + KUnit + FRAGMENT into $B/obj-check-NAME
xconfig()
{
	local name=$1 frag=$2 line sym
	local kc=$C/kconfig-$name obj=$B/obj-check-$name
	local -A want
	shift 2
	mkdir -p "$kc" "$obj"
	printf '%s\n%s\n' "$BASE_FRAG" "$frag" > "$C/$name.fragment"
	make -s -C "$TREE" O="$kc" "$@" tinyconfig >"$kc/make.log" 2>&1 &&
	"$TREE/scripts/kconfig/merge_config.sh" -m -O "$kc" "$kc/.config" \
		"$UE_REPO/harness/configs/guest.config" \
		"$TREE/tools/testing/selftests/user_events/config" "$C/$name.fragment" >"$kc/merge.log" 2>&1 &&
	make -s -C "$TREE" O="$kc" "$@" olddefconfig >>"$kc/make.log" 2>&1 || { cat "$kc/make.log" >&2; return 1; }
	# the last value requested for a symbol is the one that must land
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]] ||
		   [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			want[${BASH_REMATCH[1]}]=$line
		fi
	done < <(printf 'CONFIG_USER_EVENTS=y\n%s\n' "$(<"$C/$name.fragment")")
	for sym in "${!want[@]}"; do
		line=${want[$sym]}
		if [[ $line == \#* ]]; then
			grep -q "^$sym=" "$kc/.config" || continue
		else
			grep -qxF -- "$line" "$kc/.config" && continue
		fi
		log "check $name: requested '$line', got '$(grep -E "^(# )?${sym}[= ]" "$kc/.config" || echo absent)'"
		return 1
	done
	cmp -s "$kc/.config" "$obj/.config" || cp "$kc/.config" "$obj/.config"
}

# kbuild NAME MAKEARGS...: build bzImage in $B/obj-check-NAME, judge warnings
kbuild()
{
	local name=$1 obj=$B/obj-check-$1
	shift
	if ! nice -n 10 make -C "$TREE" O="$obj" -j"$JOBS" "$@" bzImage >"$C/$name.log" 2>&1; then
		grep -E 'error|Error' -A3 "$C/$name.log" | head -30 >&2
		judge "$C/$name.log" "$name"
		return 1
	fi
	judge "$C/$name.log" "$name"
}

# A whole variant step: config, build, optional boot with every kselftest
variant()
{
	local name=$1 boot=${2:-} start=$SECONDS args=(CC="ccache gcc") res summary
	[ "$name" = clang ] && args=(LLVM=1 CC="ccache clang")
	case $name in w1|clang) args+=(W=1) ;; esac
	if ! xconfig "$name" "${VARIANT[$name]}" "${args[@]}"; then
		result fail "$name" "(config: requested options did not land)"
		return
	fi
	if ! kbuild "$name" "${args[@]}"; then
		result fail "$name" "build ($((SECONDS - start)) s; ${C#"$UE_REPO"/}/$name.log)"
		return
	fi
	result ok "$name" "build ($((SECONDS - start)) s$(others "$name"))"
	[ -n "$boot" ] || return
	start=$SECONDS
	res=$C/boot-$name
	lock
	"$UE_REPO/harness/userspace.sh" debug >"$C/$name.userspace.log" 2>&1 ||
		{ unlock; result fail "boot-$name" "(userspace build failed)"; return; }
	UE_SMP=$([ "$name" = smp-n ] && echo 1 || echo "${UE_SMP:-2}") \
		"$UE_REPO/harness/vm.sh" "check-$name" "$UE_REPO/harness/guest/test.sh" "$res" \
		UE_SKIP_KMEMLEAK=1 >"$C/boot-$name.log" 2>&1
	UE_RESULT_PREFIX="$name: " "$UE_REPO/harness/results.sh" "$res" > "$C/boot-$name.tap" 2>&1
	local rc=$?
	unlock
	summary=$(tail -n 1 "$C/boot-$name.tap")
	grep '^[^ ]*: not ok' "$C/boot-$name.tap" | head -20 >&2
	if [ $rc -eq 0 ]; then
		result ok "boot-$name" "($summary, $((SECONDS - start)) s)"
	else
		result fail "boot-$name" "($summary, $((SECONDS - start)) s; ${C#"$UE_REPO"/}/boot-$name.tap)"
	fi
}

# The options of the files our code depends on most are random, the rest
# is the tinyconfig guest config; USER_EVENTS=y, EXPERT=y (without it most
# of tinyconfig comes back) and a buildable toolchain
# setting are forced
rand_allconfig()
{
	local kc=$C/kconfig-rand-base
	mkdir -p "$kc"
	make -s -C "$TREE" O="$kc" tinyconfig >"$kc/make.log" 2>&1 &&
	"$TREE/scripts/kconfig/merge_config.sh" -m -O "$kc" "$kc/.config" \
		"$UE_REPO/harness/configs/guest.config" >"$kc/merge.log" 2>&1 &&
	make -s -C "$TREE" O="$kc" olddefconfig >>"$kc/make.log" 2>&1 || return 1
	(cd "$TREE" && grep -hoE '^[[:space:]]*(menu)?config[[:space:]]+[A-Za-z0-9_]+' \
		init/Kconfig mm/Kconfig kernel/Kconfig.* kernel/trace/Kconfig \
		kernel/rcu/Kconfig* lib/Kconfig.debug arch/x86/Kconfig) |
		awk '{print "CONFIG_" $2}' | sort -u > "$C/rand.symbols"
	{
		grep -E '^(# )?CONFIG_' "$kc/.config" |
			awk 'FNR == NR { r[$0] = 1; next }
			     { s = $0; sub(/^# /, "", s); sub(/[= ].*/, "", s); if (!(s in r)) print }' \
			"$C/rand.symbols" -
		printf '%s\n' CONFIG_FTRACE=y CONFIG_USER_EVENTS=y CONFIG_EXPERT=y CONFIG_DEBUG_INFO_NONE=y \
			'# CONFIG_WERROR is not set' '# CONFIG_DEBUG_INFO_BTF is not set' \
			'# CONFIG_GCOV_KERNEL is not set' '# CONFIG_KCOV is not set' \
			'# CONFIG_COMPILE_TEST is not set'
	} > "$C/rand.allconfig"
}

randstep()
{
	local seed=$1 name=rand-$1 obj=$B/obj-check-rand-$1 start=$SECONDS
	mkdir -p "$obj"
	if ! make -s -C "$TREE" O="$obj" KCONFIG_SEED="$seed" KCONFIG_ALLCONFIG="$C/rand.allconfig" \
	     CC="ccache gcc" randconfig >"$C/$name.config.log" 2>&1; then
		result fail "$name" "(randconfig failed)"
		return
	fi
	if ! grep -qx CONFIG_USER_EVENTS=y "$obj/.config"; then
		result fail "$name" "(KCONFIG_SEED=$seed: USER_EVENTS=y did not land)"
		return
	fi
	local desc
	desc=$(grep -cE '^CONFIG_[A-Z0-9_]+=y' "$obj/.config")
	desc="$desc options y, $(grep -qx CONFIG_64BIT=y "$obj/.config" && echo 64 || echo 32)-bit"
	desc+="$(grep -qx CONFIG_SMP=y "$obj/.config" || echo ', SMP=n')"
	desc+="$(grep -qx CONFIG_PERF_EVENTS=y "$obj/.config" || echo ', PERF_EVENTS=n')"
	if kbuild "$name" CC="ccache gcc"; then
		result ok "$name" "build (KCONFIG_SEED=$seed, $desc, $((SECONDS - start)) s$(others "$name"))"
	else
		result fail "$name" "build (KCONFIG_SEED=$seed, $desc; ${C#"$UE_REPO"/}/$name.log)"
	fi
}

# sparse and coccicheck run on objects of the W=1 build
objcheck()
{
	local name=$1 start=$SECONDS objs=() f
	shift
	# the objects the w1 configuration builds
	for f in "${OUR_C[@]}" $(patched_c); do
		[ -f "$B/obj-check-w1/${f%.c}.o" ] && objs+=("${f%.c}.o")
	done
	if [ ! -f "$B/obj-check-w1/.config" ]; then
		result skip "$name" "needs the w1 step's build"
		return
	fi
	nice -n 10 make -C "$TREE" O="$B/obj-check-w1" -j"$JOBS" CC="ccache gcc" W=1 C=2 "$@" \
		"${objs[@]}" >"$C/$name.log" 2>&1
	local rc=$?
	if ! judge "$C/$name.log" "$name"; then
		result fail "$name" "(warnings in our files, ${C#"$UE_REPO"/}/$name.ours)"
	elif [ $rc -ne 0 ]; then
		result fail "$name" "(make exited with $rc; ${C#"$UE_REPO"/}/$name.log)"
	else
		result ok "$name" "(${objs[*]}, $((SECONDS - start)) s$(others "$name"))"
	fi
}

kdoc()
{
	local files=() f
	for f in "${OUR_C[@]}" include/linux/user_events.h include/uapi/linux/user_events.h; do
		[ -f "$TREE/$f" ] && files+=("$f")
	done
	(cd "$TREE" && scripts/kernel-doc -v -none "${files[@]}") >"$C/kdoc.log" 2>&1
	if ! judge "$C/kdoc.log" kdoc || grep -q 'warning' "$C/kdoc.log"; then
		head -20 "$C/kdoc.log" >&2
		result fail kdoc "(${files[*]})"
	else
		result ok kdoc "(${files[*]})"
	fi
}

archstep()
{
	local name=$1 start=$SECONDS summary
	UE_LOCKED=1 "$UE_REPO/harness/arch.sh" one "$name" "$C/boot-$name" >"$C/$name.log" 2>&1
	local rc=$?
	summary=$(tail -n 1 "$C/boot-$name/summary.txt" 2>/dev/null)
	cp "$C/boot-$name/summary.txt" "$C/boot-$name.tap" 2>/dev/null
	grep '^[^ ]*: not ok' "$C/boot-$name.tap" 2>/dev/null | head -20 >&2
	if [ $rc -eq 0 ]; then
		result ok "$name" "build, boot, kselftests (${summary:-no summary}, $((SECONDS - start)) s)"
	else
		result fail "$name" "build, boot, kselftests (${summary:-no summary}, $((SECONDS - start)) s; ${C#"$UE_REPO"/}/$name.log)"
	fi
}

# Debian's configurations ------------------------------------------------

# deb_tree NAME: the tree a deb-* step builds (the rt tree for rt-*); its
# added lines in $C/added-lines-rt
deb_tree()
{
	if [[ $1 == rt-* ]]; then
		"$UE_REPO/harness/distro.sh" rt-tree 2>>"$C/distro.log" || return 1
		added_lines "$B/distro/rt-pristine" "$B/linux-rt" > "$C/added-lines-rt" || true
	else
		echo "$TREE"
	fi
}

# deb_kargs NAME: the make arguments of Debian's configuration NAME
deb_kargs()
{
	case $1 in
	*arm64) printf '%s\n' ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "CC=ccache aarch64-linux-gnu-gcc" ;;
	*) printf '%s\n' "CC=ccache gcc" ;;
	esac
}

# Symbols olddefconfig sets from the toolchain, not options
DEB_TOOLCHAIN='^CONFIG_(CC_|GCC_|CLANG_|AS_|LD_|LLD_|RUSTC_|PAHOLE_|TOOLS_SUPPORT_|OBJTOOL)'

# deb_config STEP CONFIG TREE FRAGMENT... -- MAKEARGS...: Debian's
# configuration CONFIG + USER_EVENTS=y + the FRAGMENT files into
# $B/obj-check-STEP/.config (olddefconfig); every requested value must
# land.  $C/STEP.changed lists what differs from Debian's besides what
# was requested: "CONFIG_X: Debian's -> ours" (new symbols too)
deb_config()
{
	local step=$1 cfg=$2 tree=$3 deb obj=$B/obj-check-$1 kc=$C/kconfig-$1 f line sym
	local -A want=()
	shift 3
	local frags=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do frags+=("$1"); shift; done
	shift
	deb=$("$UE_REPO/harness/distro.sh" config "$cfg" 2>>"$C/distro.log") || return 1
	mkdir -p "$kc" "$obj"
	printf 'CONFIG_USER_EVENTS=y\n' > "$C/$step.fragment"
	# an rt tree whose patches did not give PREEMPT_RT fails here
	[[ $cfg == rt-* ]] && printf 'CONFIG_PREEMPT_RT=y\n' >> "$C/$step.fragment"
	cat "${frags[@]}" >> "$C/$step.fragment" 2>/dev/null
	# Without modules Kconfig would build every "m" in: leave them out
	if grep -qx '# CONFIG_MODULES is not set' "$C/$step.fragment"; then
		sed 's/^\(CONFIG_[A-Za-z0-9_]*\)=m$/# \1 is not set/' "$deb" > "$kc/.config"
		grep -c '=m$' "$deb" > "$C/$step.modules"
	else
		cp "$deb" "$kc/.config"
		rm -f "$C/$step.modules"
	fi
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$kc" "$kc/.config" "$C/$step.fragment" \
		>"$kc/merge.log" 2>&1 &&
	make -s -C "$tree" O="$kc" "$@" olddefconfig >"$kc/make.log" 2>&1 ||
		{ cat "$kc/merge.log" "$kc/make.log" >&2; return 1; }
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]] ||
		   [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			want[${BASH_REMATCH[1]}]=$line
		fi
	done < "$C/$step.fragment"
	for sym in "${!want[@]}"; do
		line=${want[$sym]}
		if [[ $line == \#* ]]; then
			grep -q "^$sym=" "$kc/.config" || continue
		else
			grep -qxF -- "$line" "$kc/.config" && continue
		fi
		log "check $step: requested '$line', got '$(grep -E "^(# )?${sym}[= ]" "$kc/.config" || echo absent)'"
		return 1
	done
	# What changed besides the request, Debian's value first
	awk -v tc="$DEB_TOOLCHAIN" -v nomod="$([ -f "$C/$step.modules" ] && echo 1)" '
	function val(l,  s) { if (l ~ /^# CONFIG_.* is not set$/) return "n"
			      s = l; sub(/^[^=]*=/, "", s); return s }
	function sym(l,  s) { s = l; sub(/^# /, "", s); sub(/[= ].*/, "", s); return s }
	FILENAME == ARGV[1] { if ($0 ~ /^(# )?CONFIG_/) want[sym($0)] = 1; next }
	FILENAME == ARGV[2] { if ($0 ~ /^(# )?CONFIG_/) deb[sym($0)] = val($0); next }
	/^(# )?CONFIG_/ {
		s = sym($0); v = val($0)
		if (s in want || s ~ tc) next
		if (!(s in deb)) { if (v != "n") printf "%s: (not in Debian\x27s file) -> %s\n", s, v }
		else if (deb[s] != v && !(nomod && deb[s] == "m" && v == "n"))
			printf "%s: %s -> %s\n", s, deb[s], v
	}' "$C/$step.fragment" "$deb" "$kc/.config" |
		sort > "$C/$step.changed"
	cmp -s "$kc/.config" "$obj/.config" || cp "$kc/.config" "$obj/.config"
}

# changed_summary STEP: which of Debian's values changed besides the
# request (the first few), and how many symbols its file leaves out (the
# packaged configs drop those its build sets, e.g. the signing key)
changed_summary()
{
	local n new
	new=$(grep -c "not in Debian's file" "$C/$1.changed")
	n=$(($(wc -l < "$C/$1.changed") - new))
	if [ "$n" -eq 0 ]; then
		printf "every other value Debian's"
	else
		printf "%d other value(s) changed: %s" "$n" \
			"$(grep -v "not in Debian's file" "$C/$1.changed" | head -3 | cut -d: -f1 | tr '\n' ' ')$([ "$n" -gt 3 ] && echo "... ")"
	fi
	[ "$new" -eq 0 ] || printf ", %d that its file does not list now set" "$new"
	[ ! -f "$C/$1.modules" ] || printf ", its %d modules left out" "$(cat "$C/$1.modules")"
	printf ' (%s)' "${C#"$UE_REPO"/}/$1.changed"
}

# configured TREE CONFIG DIR/NAME.o: the directory's Makefile builds the
# object in CONFIG (obj-y, or obj-$(CONFIG_X) with X y or m)
configured()
{
	local tree=$1 config=$2 o=$3 sym
	sym=$(grep -oE "^obj-(y|\\\$\(CONFIG_[A-Z0-9_]+\))[[:space:]]*[:+]?=.*[[:space:]]${o##*/}\b" \
		"$tree/$(dirname "$o")/Makefile" | head -n 1 | sed -n 's/^obj-\(y\|\$(\(CONFIG_[A-Z0-9_]*\))\).*/\1/p')
	case $sym in
	y) return 0 ;;
	'') return 1 ;;
	*) sym=${sym#\$(}; sym=${sym%)}; grep -qE "^$sym=(y|m)$" "$config" ;;
	esac
}

# deb_objects STEP: Debian's configuration with USER_EVENTS=y; the
# series' objects and kernel/fork.o with W=1
deb_objects()
{
	local step=$1 cfg=${1#deb-} start=$SECONDS tree added=$C/added-lines o objs=() kargs=()
	local obj=$B/obj-check-$1 missing=()
	mapfile -t kargs < <(deb_kargs "$cfg")
	if ! tree=$(deb_tree "$cfg"); then
		result fail "$step" "(the rt tree: ${C#"$UE_REPO"/}/distro.log)"
		return
	fi
	[[ $cfg == rt-* ]] && added=$C/added-lines-rt
	if ! deb_config "$step" "$cfg" "$tree" -- "${kargs[@]}"; then
		result fail "$step" "(config: Debian's $cfg with USER_EVENTS=y did not land)"
		return
	fi
	# fork.o and exec.o are always built (fs/Makefile lists exec.o on a
	# continuation line, which configured() does not follow)
	objs=(kernel/fork.o fs/exec.o)
	for o in "${OUR_C[@]}" $(patched_c); do
		o=${o%.c}.o
		[[ " ${objs[*]} " == *" $o "* ]] && continue
		configured "$tree" "$obj/.config" "$o" && objs+=("$o")
	done
	rm -f "${objs[@]/#/$obj/}"
	nice -n 10 make -k -C "$tree" O="$obj" -j"$JOBS" "${kargs[@]}" W=1 "${objs[@]}" \
		>"$C/$step.log" 2>&1
	for o in kernel/trace/trace_events_user.o kernel/fork.o fs/exec.o; do
		[ -f "$obj/$o" ] || missing+=("$o")
	done
	local built=()
	for o in "${objs[@]}"; do [ -f "$obj/$o" ] && built+=("${o##*/}"); done
	if ! judge "$C/$step.log" "$step" "$added"; then
		result fail "$step" "W=1 (warnings in our files: ${C#"$UE_REPO"/}/$step.ours)"
	elif [ ${#missing[@]} -gt 0 ]; then
		grep -E 'error|Error' "$C/$step.log" | head -20 >&2
		result fail "$step" "W=1 (${missing[*]} not built; ${C#"$UE_REPO"/}/$step.log)"
	else
		result ok "$step" "W=1 ${built[*]}: 0 warnings in our files; $(changed_summary "$step"); $((SECONDS - start)) s$(others "$step")"
	fi
}

# deb_boot STEP: Debian's configuration built whole without modules,
# booted; every kselftest and KUnit suite
deb_boot()
{
	local step=$1 cfg=${1#deb-} start=$SECONDS tree added=$C/added-lines res rc summary script
	local frags=("$UE_REPO/harness/configs/guest.config" "$UE_REPO/harness/configs/deb-boot.config"
		     "$TREE/tools/testing/selftests/user_events/config")
	cfg=${cfg%-boot}
	if ! tree=$(deb_tree "$cfg"); then
		result fail "$step" "(the rt tree: ${C#"$UE_REPO"/}/distro.log)"
		return
	fi
	if [[ $cfg == rt-* ]]; then
		added=$C/added-lines-rt
		frags+=("$UE_REPO/harness/configs/deb-rt-debug.config")
	fi
	if ! deb_config "$step" "$cfg" "$tree" "${frags[@]}" -- CC="ccache gcc"; then
		result fail "$step" "(config: requested options did not land)"
		return
	fi
	if ! nice -n 10 make -C "$tree" O="$B/obj-check-$step" -j"$JOBS" CC="ccache gcc" bzImage \
	     >"$C/$step.log" 2>&1; then
		grep -E 'error|Error' -A3 "$C/$step.log" | head -30 >&2
		judge "$C/$step.log" "$step" "$added"
		result fail "$step" "build ($((SECONDS - start)) s; ${C#"$UE_REPO"/}/$step.log)"
		return
	fi
	if ! judge "$C/$step.log" "$step" "$added"; then
		result fail "$step" "build (warnings in our files: ${C#"$UE_REPO"/}/$step.ours)"
		return
	fi
	result ok "$step" "build ($(grep -c '^CONFIG_.*=y' "$B/obj-check-$step/.config") options y, $(changed_summary "$step"); $((SECONDS - start)) s$(others "$step"))"
	start=$SECONDS
	res=$C/boot-$step
	lock
	"$UE_REPO/harness/userspace.sh" debug >"$C/$step.userspace.log" 2>&1 ||
		{ unlock; result fail "boot-$step" "(userspace build failed)"; return; }
	script=test.sh
	[[ $cfg == rt-* ]] && script=rt.sh
	# One host thread for both vCPUs: these kernels patch the sched_switch
	# tracepoint's jump label in __schedule() at every first event enable,
	# and multi-threaded TCG then lets the other vCPU run a stale int3 of
	# text_poke_bp() after the patch is done ("int3: 0000 [#1]" in
	# __schedule, twice in three boots).  Round-robin TCG has no stale code.
	UE_ACCEL=${UE_ACCEL:-tcg,thread=single} UE_PCI_ACPI=1 UE_TIMEOUT=${UE_TIMEOUT:-3600} \
		"$UE_REPO/harness/vm.sh" "check-$step" "$UE_REPO/harness/guest/$script" \
		"$res" UE_SKIP_KMEMLEAK=1 >"$C/boot-$step.log" 2>&1
	local extra=()
	[ -f "$res/rt.tap" ] && extra=("$res/rt.tap")
	UE_RESULT_PREFIX="$step: " "$UE_REPO/harness/results.sh" "$res" "${extra[@]}" \
		> "$C/boot-$step.tap" 2>&1
	rc=$?
	unlock
	summary=$(tail -n 1 "$C/boot-$step.tap")
	[ -f "$res/preemptoff.max" ] && summary+="; $(preemptoff_summary "$res")"
	grep '^[^ ]*: not ok' "$C/boot-$step.tap" | head -20 >&2
	if [ $rc -eq 0 ]; then
		result ok "boot-$step" "($summary, $((SECONDS - start)) s)"
	else
		result fail "boot-$step" "($summary, $((SECONDS - start)) s; ${C#"$UE_REPO"/}/boot-$step.tap)"
	fi
}

# preemptoff_summary RESULTS: the longest preemption-off section that
# harness/guest/rt.sh measured, where it started and ended (information,
# not judged: TCG and lockdep stretch every section)
preemptoff_summary()
{
	local res=$1 max from to
	max=$(cat "$res/preemptoff.max")
	from=$(sed -n 's/^#* *=> started at: *//p' "$res/preemptoff.txt" | head -n 1)
	to=$(sed -n 's/^#* *=> ended at: *//p' "$res/preemptoff.txt" | head -n 1)
	echo "longest preempt-off section under stress_test ${max} us, ${from:-?} to ${to:-?} (${res#"$UE_REPO"/}/preemptoff.txt)"
}

# lockdown: make test's debug kernel booted locked down, once per level
lockdown_step()
{
	local start lvl res rc summary tap
	lock
	if ! "$UE_REPO/harness/kernel.sh" debug >"$C/lockdown.build.log" 2>&1 ||
	   ! "$UE_REPO/harness/userspace.sh" debug >"$C/lockdown.userspace.log" 2>&1; then
		unlock
		result fail lockdown "(debug kernel or userspace build failed: ${C#"$UE_REPO"/}/lockdown.build.log)"
		return
	fi
	for lvl in integrity confidentiality; do
		start=$SECONDS
		res=$C/boot-lockdown-$lvl
		UE_CMDLINE="${UE_CMDLINE:-} lockdown=$lvl" \
			"$UE_REPO/harness/vm.sh" debug "$UE_REPO/harness/guest/lockdown.sh" "$res" \
			UE_T="$([ $lvl = integrity ] && echo "$LOCKDOWN_T" || echo none)" \
			>"$C/boot-lockdown-$lvl.log" 2>&1
		tap=()
		[ -f "$res/lockdown.tap" ] && tap=("$res/lockdown.tap")
		UE_RESULT_PREFIX="lockdown=$lvl: " "$UE_REPO/harness/results.sh" "$res" "${tap[@]}" \
			> "$C/boot-lockdown-$lvl.tap" 2>&1
		rc=$?
		[ ${#tap[@]} -gt 0 ] || rc=1
		summary=$(tail -n 1 "$C/boot-lockdown-$lvl.tap")
		grep '^[^ ]*: not ok' "$C/boot-lockdown-$lvl.tap" | head -20 >&2
		if [ $rc -eq 0 ]; then
			result ok "lockdown=$lvl" "($summary, $((SECONDS - start)) s)"
		else
			result fail "lockdown=$lvl" "($summary, $((SECONDS - start)) s; ${C#"$UE_REPO"/}/boot-lockdown-$lvl.tap)"
		fi
	done
	unlock
}

# doc-links: the documents' relative links and the target list
doc_links()
{
	local out
	if out=$(python3 "$UE_REPO/harness/doccheck.py" "$UE_REPO" 2>&1); then
		result ok doc-links "(links of README.md and docs/, make help)"
	else
		grep -v '^ok' <<< "$out" >&2
		result fail doc-links "($(grep -c '^not ok' <<< "$out") of harness/doccheck.py's checks failed)"
	fi
}

# model: model_test's random programs for half an hour per build (64-bit,
# and 32-bit where it is built) on make test's debug kernel
model_step()
{
	local start=$SECONDS res=$C/boot-model secs=${UE_MODEL_CHECK_SECONDS:-1800}
	local seed progs=model_test summary rc
	seed=${UE_MODEL_SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
	lock
	if ! "$UE_REPO/harness/kernel.sh" debug >"$C/model.build.log" 2>&1 ||
	   ! "$UE_REPO/harness/userspace.sh" debug >>"$C/model.build.log" 2>&1; then
		unlock
		result fail model "(debug kernel or userspace build failed: ${C#"$UE_REPO"/}/model.build.log)"
		return
	fi
	grep -q ':model_test_32$' "$B/kselftest/kselftest-list.txt" && progs+=,model_test_32
	# Each program stops after the program that passes $secs; it may then
	# shrink a failure for 300 s: the kselftest timeout leaves room for both
	UE_TIMEOUT=$(( (secs + 900) * 2 + 600 )) \
		"$UE_REPO/harness/vm.sh" debug "$UE_REPO/harness/guest/test.sh" "$res" \
		UE_SKIP_KMEMLEAK=1 UE_T=$progs UE_MODEL_SEED=$seed UE_MODEL_SECONDS="$secs" \
		UE_MODEL_PROGRAMS=1000000 UE_TIMEOUT_FACTOR=$(( (secs + 900) / 180 + 1 )) \
		tp_printk tp_printk_stop_on_boot >"$C/boot-model.log" 2>&1
	"$UE_REPO/harness/results.sh" "$res" > "$C/boot-model.tap" 2>&1
	rc=$?
	unlock
	summary=$(tail -n 1 "$C/boot-model.tap")
	grep -h 'programs, [0-9]* steps in' "$res"/kselftest/model_test*.tap 2>/dev/null | sed 's/^# *//' >&2
	if [ $rc -eq 0 ]; then
		result ok model "($progs, seed $seed, $summary, $((SECONDS - start)) s)"
	else
		result fail model "($progs, seed $seed, $summary, $((SECONDS - start)) s; ${C#"$UE_REPO"/}/boot-model.tap)"
	fi
}

# ---------------------------------------------------------------------------
# ver-VERSION: the series on each of Debian's linux-source-6.1 versions
# ---------------------------------------------------------------------------
# At least these, and every other version apt knows ("apt-cache madison
# linux-source-6.1"; newer ones appear after "apt-get update")
DEB_MIN_VERSIONS="6.1.170-3 6.1.176-1 6.1.187-1 6.1.190-1 6.1.192-2"
deb_versions()
{
	{ printf '%s\n' $DEB_MIN_VERSIONS; debian_versions; } | sort -u | sort -V
}

# deb_expect TREE AM: AM (the git am checkout) holds exactly TREE plus the
# series: the overlay, the old user_events files gone, and the patches of
# the commits AM has applied to TREE's files with patch(1); every other
# file as in TREE.  Independent of series.sh: it compares the files.
deb_expect()
{
	local tree=$1 am=$2 exp=$C/deb-expect f p kind commit subj errs=0
	local -A own=() kept=()
	rm -rf "$exp" && mkdir -p "$exp"
	# the commits the export kept, by subject
	while IFS= read -r subj; do kept[$subj]=1; done < <(git -C "$am" log --format=%s \
		"$(git -C "$am" rev-list --max-parents=0 HEAD)..HEAD")
	# the overlay and the old files
	while IFS= read -r f; do
		[ -f "$UE_REPO/$f" ] || continue
		mkdir -p "$exp/$(dirname "$f")" && cp "$UE_REPO/$f" "$exp/$f" && own[$f]=1
	done < <(cd "$UE_REPO" && git ls-files -co --exclude-standard -- "${UE_OVERLAY_DIRS[@]}")
	while IFS= read -r f; do
		[ -n "${own[$f]:-}" ] || own[$f]=gone
	done < <(cd "$tree" && find "${UE_OLD_DIRS[@]}" -type f 2>/dev/null)
	# the patches, in table order, on the tree's files
	while IFS=$'\t' read -r kind commit p _; do
		[ "$kind" = patch ] || continue
		[ -n "${kept[$(head -n1 "$UE_REPO/harness/series/$commit.txt")]:-}" ] || continue
		while IFS= read -r f; do
			if [ ! -e "$exp/$f" ]; then
				mkdir -p "$exp/$(dirname "$f")" && cp "$tree/$f" "$exp/$f"
			fi
			own[$f]=1
		done < <(patch_files "$UE_REPO/patches/$p")
		patch -s -p1 -d "$exp" --forward --batch --reject-file=- -i "$UE_REPO/patches/$p" >/dev/null ||
			{ echo "patches/$p does not apply to $tree"; return 1; }
	done < <(series_rows)
	for f in "${!own[@]}"; do
		if [ "${own[$f]}" = gone ]; then
			[ ! -e "$am/$f" ] || { echo "$f: still there"; errs=1; }
		elif ! cmp -s "$exp/$f" "$am/$f"; then
			echo "$f: not overlay + patches"; errs=1
		fi
	done
	# every other file: as in the tree (a directory only one side has:
	# each file in it)
	while IFS= read -r f; do
		[ -n "${own[$f]:-}" ] || { echo "$f: differs from the tree, and the series does not own it"; errs=1; }
	done < <(diff -rq --no-dereference -x .git "$tree" "$am" 2>&1 |
		sed -n -e "s|^Files $tree/\(.*\) and $am/.* differ\$|\1|p" \
		       -e "s|^Only in $tree/\{0,1\}\([^:]*\): \(.*\)|\1/\2|p" \
		       -e "s|^Only in $am/\{0,1\}\([^:]*\): \(.*\)|\1/\2|p" | sed 's|^/||' |
		while IFS= read -r f; do
			if [ -d "$am/$f" ] && [ ! -L "$am/$f" ]; then
				(cd "$am" && find "$f" ! -type d)
			elif [ -d "$tree/$f" ] && [ ! -L "$tree/$f" ]; then
				(cd "$tree" && find "$f" ! -type d)
			else
				printf '%s\n' "$f"
			fi
		done)
	rm -rf "$exp"
	return $errs
}

# ver_objects AM: the objects of the series' C files (ours, and the kernel
# C files the patches change) that their directory's Makefile builds (the
# KUnit file is included by trace_events_user.c)
ver_objects()
{
	local f o
	{
		(cd "$UE_REPO" && git ls-files -co --exclude-standard -- 'kernel/*.c')
		sed -n 's|^+++ b/\([^[:space:]]*\.c\)\([[:space:]].*\)\{0,1\}$|\1|p' "$UE_REPO"/patches/*.patch
	} | grep -v '^tools/' | sort -u | while IFS= read -r f; do
		o=${f##*/}
		o=${o%.c}.o
		grep -qsE "(^|[[:space:]=+])${o//./\\.}([[:space:]]|\$)" "$1/$(dirname "$f")/Makefile" &&
			echo "${f%.c}.o"
	done
}

debstep()
{
	local v=$1 name=deb-$1 start=$SECONDS tree am=$C/deb-am obj=$B/obj-check-deb-$1
	local kc frag base objs=() o t t_export t_build moved fz line
	local log=$C/$name.log
	: > "$log"
	if ! tree=$(debian_tree "$v" 2>>"$log"); then
		result fail "$name" "($(tail -n1 "$log"), $((SECONDS - start)) s)"
		return
	fi
	# 1. the export against this tree, and git am on a copy of it
	if ! SERIES_OUT=$C/series-$name SERIES_AM=$am SERIES_CHECKPATCH=0 LINUX=$tree \
	     "$UE_REPO/harness/series.sh" >>"$log" 2>&1; then
		grep -E 'FAILED|ERROR|hunk' "$log" | head -10 | sed 's/^/[check] /' >&2
		result fail "$name" "(export or git am failed, $((SECONDS - start)) s; ${log#"$UE_REPO"/})"
		return
	fi
	t_export=$((SECONDS - start))
	moved=$(grep -c . "$C/series-$name.offsets" 2>/dev/null) || true
	fz=$(grep -c 'with fuzz' "$C/series-$name.offsets" 2>/dev/null) || true
	# 2. the result is the tree + overlay + patches, nothing else
	if ! deb_expect "$tree" "$am" > "$C/$name.expect" 2>&1; then
		head -10 "$C/$name.expect" | sed 's/^/[check] /' >&2
		result fail "$name" "(git am does not give overlay + patches on $v; ${C#"$UE_REPO"/}/$name.expect)"
		return
	fi
	# 3. the series' objects, W=1, in the guest config with USER_EVENTS=y
	kc=$C/kconfig-$name
	mkdir -p "$kc" "$obj"
	frag=$C/$name.fragment
	printf '%s\n' "$BASE_FRAG" CONFIG_USER_EVENTS=y CONFIG_HIST_TRIGGERS=y > "$frag"
	if ! { make -s -C "$am" O="$kc" tinyconfig &&
	       "$am/scripts/kconfig/merge_config.sh" -m -O "$kc" "$kc/.config" \
			"$UE_REPO/harness/configs/guest.config" \
			"$am/tools/testing/selftests/user_events/config" "$frag" &&
	       make -s -C "$am" O="$kc" olddefconfig; } >>"$log" 2>&1; then
		result fail "$name" "(config failed; ${log#"$UE_REPO"/})"
		return
	fi
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)= ]] || continue
		grep -qxF -- "$line" "$kc/.config" || {
			result fail "$name" "(config: requested '$line', got '$(grep -E "^(# )?${BASH_REMATCH[1]}[= ]" "$kc/.config" || echo absent)')"
			return
		}
	done < "$frag"
	cmp -s "$kc/.config" "$obj/.config" || cp "$kc/.config" "$obj/.config"
	mapfile -t objs < <(ver_objects "$am")
	t=$SECONDS
	if ! nice -n 19 make -C "$am" O="$obj" -j"$JOBS" CC="ccache gcc" W=1 "${objs[@]}" \
	     >"$C/$name.build.log" 2>&1; then
		grep -E 'error' -A3 "$C/$name.build.log" | head -20 | sed 's/^/[check] /' >&2
		result fail "$name" "(W=1 build failed; ${C#"$UE_REPO"/}/$name.build.log)"
		return
	fi
	t_build=$((SECONDS - t))
	for o in "${objs[@]}"; do
		[ -f "$obj/$o" ] || { result fail "$name" "($o was not built: the config lacks it)"; return; }
	done
	# a warning in our files or on a line the series adds fails the step
	base=$(git -C "$am" rev-list --max-parents=0 HEAD)
	git -C "$am" diff -U0 "$base" HEAD | awk '
		/^\+\+\+ b\// { f = substr($0, 7); next }
		/^@@ / { split($3, a, ","); n = substr(a[1], 2); next }
		/^\+/ { print f ":" n; n++ }' > "$C/$name.added"
	# (paths in the log: absolute, or relative to O=, "../check/deb-am/...")
	awk -v ours="$OURS" -v o="$C/$name.ours" -v x="$C/$name.others" -v am="${am##*/}/" '
		FNR == NR { added[$0] = 1; next }
		/warning:/ {
			line = $0
			i = index($0, "/" am); if (i) line = substr($0, i + length(am) + 1)
			sub(/^(\.\.\/|\.\/)+/, "", line); split(line, f, ":")
			if (f[1] ~ "^(" ours ")$" || (f[1] ":" f[2]) in added) print line > o
			else print line > x
		}' "$C/$name.added" "$C/$name.build.log"
	if [ -s "$C/$name.ours" ]; then
		head -20 "$C/$name.ours" | sed 's/^/[check] /' >&2
		result fail "$name" "(W=1: $(wc -l < "$C/$name.ours") warning(s) in the series' code; ${C#"$UE_REPO"/}/$name.ours)"
		return
	fi
	result ok "$name" "export + git am ($t_export s; ${moved:-0} hunks moved, ${fz:-0} with fuzz), = overlay + patches, W=1 build of ${#objs[@]} objects, 0 warnings ($t_build s$(others "$name")), $((SECONDS - start)) s"
}
for v in $(deb_versions); do STEPS+=("ver-$v"); done

start_all=$SECONDS
lock
"$UE_REPO/harness/deps.sh" check cross distro || exit 1
"$UE_REPO/harness/assemble.sh" || exit 1
unlock
rm -f "$C"/*.ours "$C"/*.others "$C/added-lines" "$C/added-lines-rt"
log "make check: ${STEPS[*]}"
rand_ready=
for s in "${STEPS[@]}"; do
	wanted "$s" || continue
	counted=$((pass + fail + skip))
	case $s in
	doc-links) doc_links ;;
	w1|clang|compat-n|hist-n|kunit-m|modules-n) variant "$s" ;;
	smp-n|preempt) variant "$s" boot ;;
	sparse) objcheck sparse ;;
	cocci) objcheck cocci CHECK="$TREE/scripts/coccicheck" MODE=report ;;
	kdoc) kdoc ;;
	deb-*-boot) deb_boot "$s" ;;
	deb-*) deb_objects "$s" ;;
	lockdown) lockdown_step ;;
	model) model_step ;;
	rand-*)
		if [ -z "$rand_ready" ]; then
			rand_allconfig || { result fail "$s" "(randconfig base failed)"; continue; }
			rand_ready=1
		fi
		randstep "${s#rand-}"
		;;
	ver-*) debstep "${s#ver-}" ;;
	*) archstep "$s" ;;
	esac
	# A step that says nothing is a harness bug, never a pass
	[ $((pass + fail + skip)) -gt "$counted" ] || result fail "$s" "(the step reported no result)"
done
{
	printf '%s\n' "${lines[@]}"
	echo "make check took $(((SECONDS - start_all) / 60)) min $(((SECONDS - start_all) % 60)) s"
	echo "$pass passed, $fail failed, $skip skipped"
} | tee "$C/summary.txt"
[ $fail -eq 0 ]
