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
# The table of the series: which change goes into which commit, in order
SERIES_TABLE=$UE_REPO/patches/series
# The directories of the overlay (new or replaced files at their tree
# paths), and the directories of the old 6.1 implementation that the
# series replaces wholesale (every file of the tree there goes away)
UE_OVERLAY_DIRS=(kernel include Documentation samples tools)
UE_OLD_DIRS=(samples/user_events tools/testing/selftests/user_events)
# Debian's linux-source-6.1 trees of DEBIAN_VERSION= and make check
DEB_DIR=$B/debian

# The compiler of every kernel build: gcc through ccache, with the cache
# outside build/ so that "make distclean" keeps it.  UE_CCACHE=0: plain gcc.
KCC=gcc
if [ "${UE_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
	KCC="ccache gcc"
	export CCACHE_DIR=${UE_CCACHE_DIR:-$HOME/.cache/ue-ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
	# A clean clone elsewhere (CI) hits what another clone compiled:
	# paths below build/ are hashed relative, the working directory
	# (in the debug info) not at all.
	export CCACHE_BASEDIR=$B CCACHE_NOHASHDIR=true
fi

# obj dir of a flavour: debug or release
objdir() { echo "$B/obj-$1"; }

log() { printf '[harness] %s\n' "$*" >&2; }
die() { printf '[harness] ERROR: %s\n' "$*" >&2; exit 1; }

# mmss SECONDS: "m:ss"
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# One harness run per build/ at a time (they share the tree and obj dirs).
# The lock is fd 9; the scripts a locked run starts inherit it and see
# UE_LOCKED=1, so they do not wait for their own parent.
lock_build()
{
	[ -z "${UE_LOCKED:-}" ] || return 0
	mkdir -p "$B"
	exec 9> "$B/.lock"
	if ! flock -n 9; then
		echo "[harness] waiting for another harness run using $B" >&2
		flock 9
	fi
	export UE_LOCKED=1
}

# patch_files PATCH: the tree paths a -p1 patch touches, one per line
patch_files()
{
	awk 'prev ~ /^--- / && /^\+\+\+ / {
		split(prev, o, /[ \t]/); split($0, n, /[ \t]/)
		print o[2]; print n[2] }
	     { prev = $0 }' "$1" | sed 's|^[ab]/||' | grep -v '^/dev/null$' | sort -u
}

# series_rows: the rows of patches/series, checked, one per line as
# "KIND<TAB>COMMIT<TAB>ITEM<TAB>FILTERS": KIND is "patch" (ITEM is a file
# of patches/), "path" (ITEM is a path or glob of the tree) or "partial"
# (a path with FILTERS, the space-separated regexes without their "-").
# Dies on a malformed row; the format is described in patches/series.
series_rows()
{
	local n=0 line commit item f kind filters prev= seen=" " w where
	[ -f "$SERIES_TABLE" ] || die "no $SERIES_TABLE"
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		[[ $line =~ ^[[:space:]]*(#|$) ]] && continue
		read -r -a w <<< "$line"
		commit=${w[0]} item=${w[1]:-} filters=
		where="patches/series:$n: '$line'"
		[ -n "$item" ] || die "$where: expected COMMIT ITEM [-REGEX...]"
		[[ $commit =~ ^[0-9]+-[a-z0-9-]+$ ]] ||
			die "$where: COMMIT must look like NNN-topic (the name of harness/series/COMMIT.txt)"
		if [ "$commit" != "$prev" ]; then
			[[ $seen != *" $commit "* ]] ||
				die "$where: the rows of $commit must be next to each other"
			[[ -z $prev || $commit > $prev ]] ||
				die "$where: $commit comes after $prev here, so its name must sort after it"
			seen+="$commit " prev=$commit
		fi
		for f in "${w[@]:2}"; do
			[[ $f == -?* ]] || die "$where: a filter is a regex after '-'"
			filters+="${filters:+ }${f#-}"
		done
		if [[ $item == *.patch && $item != */* ]]; then
			kind=patch
			[ -z "$filters" ] || die "$where: a patch takes no -REGEX filters"
		elif [ -n "$filters" ]; then
			kind=partial
		else
			kind=path
		fi
		printf '%s\t%s\t%s\t%s\n' "$kind" "$commit" "$item" "$filters"
	done < "$SERIES_TABLE"
}

# our_warnings LOG SRCTREE: the compiler, linker and objtool warnings in
# a kbuild LOG about a file of build/linux.manifest (the files the series
# owns), as "PATH<TAB>LINE" (PATH relative to the tree; a warning about a
# .o names its .c).
our_warnings()
{
	local logf=$1 src=${2%/}/
	[ -f "$B/linux.manifest" ] || return 0
	{ grep -a 'warning:' "$logf" || true; } | sed 's/\x1b\[[0-9;]*[mK]//g' |
	awk -v src="$src" -v man="$B/linux.manifest" '
		BEGIN { while ((getline l < man) > 0) own[l] = 1 }
		{
			i = index($0, ": warning:"); if (!i) i = index($0, ":warning:")
			if (!i) next
			f = substr($0, 1, i - 1); sub(/:[0-9]+(:[0-9]+)?$/, "", f)
			if (index(f, src) == 1) f = substr(f, length(src) + 1)
			sub(/^\.\.\//, "", f); sub(/^\.\//, "", f)
			g = f; sub(/\.o$/, ".c", g)
			if (own[f]) print f "\t" $0
			else if (own[g]) print g "\t" $0
		}'
}

# kbuild_progress LOG WHAT TOTAL: copy a kbuild output stream (V=0) into
# LOG and count the objects it compiles.  On a terminal (stderr) one line
# is updated at most every 3 s: "WHAT: N of ~TOTAL objects (P%), m:ss"
# (TOTAL: the objects of a full build, 0 if unknown); otherwise one line a
# minute.  The last count goes into LOG.count.
kbuild_progress()
{
	local logf=$1 what=$2 total=$3 n=0 start=$SECONDS last=$SECONDS every=60 line msg
	[ -t 2 ] && every=3
	: > "$logf"
	while IFS= read -r line; do
		printf '%s\n' "$line" >> "$logf"
		[[ $line =~ ^\ \ (CC|AS)(\ \[M\])?\ +[^\ ]+\.o$ ]] && n=$((n + 1))
		if [ $((SECONDS - last)) -ge $every ]; then
			last=$SECONDS
			msg="$what: $n objects compiled"
			[ "$total" -gt 0 ] &&
				msg="$what: $n of ~$total objects ($((n * 100 / total > 99 ? 99 : n * 100 / total))%)"
			msg+=", $(mmss $((SECONDS - start)))"
			if [ $every = 3 ]; then
				printf '\r[harness] %s ' "$msg" >&2
			else
				log "$msg"
			fi
		fi
	done
	[ $every = 60 ] || [ $((SECONDS - start)) -lt 3 ] || printf '\r\033[K' >&2
	echo "$n" > "$logf.count"
}

# series_author: "Name <email>", the author of the series, stored once in
# harness/series/AUTHOR: the From: and the first Signed-off-by: of every
# exported patch, whoever exports it
series_author()
{
	local a
	a=$(grep -v '^#' "$UE_REPO/harness/series/AUTHOR" 2>/dev/null | grep -m1 .) ||
		die "no author in harness/series/AUTHOR (one line: Name <email>)"
	[[ $a =~ ^[^\<\>]+\ \<[^\<\>\ ]+@[^\<\>\ ]+\>$ ]] ||
		die "harness/series/AUTHOR: '$a' is not 'Name <email>'"
	printf '%s\n' "$a"
}

# kernel_version TREE: "6.1.N" from TREE's top-level Makefile (N may be
# empty), or nothing when TREE has none
kernel_version()
{
	awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } /^NAME *=/ { exit }
		END { if (v != "" && p != "") print v "." p (s != "" ? "." s : "") }' \
		"$1/Makefile" 2>/dev/null || true
}

# debian_versions: the versions of linux-source-6.1 that apt knows, oldest
# first
debian_versions()
{
	# (with deb-src entries, madison lists the versions of the source
	# package "linux" too: only the binary package counts)
	apt-cache madison linux-source-6.1 2>/dev/null |
		awk -F' *[|] *' '{ sub(/^ */, "", $1) } $1 == "linux-source-6.1" && $3 ~ / Packages$/ { print $2 }' |
		sort -u | sort -V
}

# debian_tree VERSION: the path of Debian's linux-source-6.1 VERSION,
# unpacked under build/debian/linux-VERSION (downloaded with "apt-get
# download" and unpacked the first time, in a temporary directory moved
# into place at the end).  Dies with one line when apt has no such version.
debian_tree()
{
	local v=$1 d=$DEB_DIR/linux-$1 tmp known sandbox=()
	[[ $v =~ ^6\.1\.[0-9]+-[0-9A-Za-z.+~]+$ ]] ||
		die "DEBIAN_VERSION=$v: not a version of linux-source-6.1 (6.1.N-M, e.g. 6.1.176-1)"
	if [ -f "$d/Makefile" ]; then
		echo "$d"
		return 0
	fi
	known=$(debian_versions | paste -sd ' ')
	[[ " $known " == *" $v "* ]] ||
		die "DEBIAN_VERSION=$v: apt has no linux-source-6.1 of that version (apt-cache madison lists: ${known:-none}; apt-get update for newer ones)"
	mkdir -p "$DEB_DIR"
	tmp=$(mktemp -d "$DEB_DIR/.fetch-$v.XXXXXX")
	# apt's _apt user cannot write into a root-owned directory
	[ "$(id -u)" != 0 ] || sandbox=(-o APT::Sandbox::User=root)
	log "downloading linux-source-6.1 $v (apt-get download, ~140 MB) and unpacking it into ${d#"$UE_REPO"/}"
	if ! (cd "$tmp" && apt-get download -q "${sandbox[@]}" "linux-source-6.1=$v" >"$tmp/apt.log" 2>&1); then
		known=$(grep -m1 '^E:' "$tmp/apt.log" || tail -n1 "$tmp/apt.log")
		rm -rf "$tmp"
		die "DEBIAN_VERSION=$v: apt-get download failed: $known"
	fi
	mkdir "$tmp/x"
	if ! dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*.deb |
	     tar -xO ./usr/src/linux-source-6.1.tar.xz | nice xz -dc -T0 | tar -x -C "$tmp/x" ||
	   [ ! -f "$tmp/x/linux-source-6.1/Makefile" ]; then
		rm -rf "$tmp"
		die "DEBIAN_VERSION=$v: the package holds no usable /usr/src/linux-source-6.1.tar.xz"
	fi
	rm -rf "$d"
	mv "$tmp/x/linux-source-6.1" "$d"
	rm -rf "$tmp"
	echo "$d"
}
