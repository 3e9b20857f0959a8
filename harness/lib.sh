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
