#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make series": export the work as a mail-ready git format-patch series
# against pristine 6.1 and check it: git am on a pristine checkout gives
# the assembled tree, checkpatch --strict has no error or warning, the
# MAINTAINERS change names nobody but the series' author, and the kernel
# builds after each patch.
#
#   series.sh              all of it ("make series")
#   series.sh --tap FILE   the part "make test" runs: export, git am,
#                          MAINTAINERS and checkpatch, no builds, as TAP
#                          lines in FILE; the caller holds the build lock
#                          and has assembled the tree
#   LINUX=TREE series.sh   the series for another 6.1.y tree (a git work
#                          tree: its tracked files; a plain source tree:
#                          every file), "make series LINUX=TREE"
#   DEBIAN_VERSION=6.1.N-M series.sh   the same for Debian's linux-source-6.1
#                          of that version (apt-get download, unpacked
#                          under build/debian/linux-6.1.N-M the first time)
#
# Against another tree, the diffs are made against that tree: the old
# user_events files are replaced or deleted whatever their content there,
# and the patches of patches/ are applied to its files with offsets and
# fuzz, in the order of patches/series, and diffed again.  A hunk that
# does not apply refuses the export, naming the file and the hunk.  A
# commit with a harness/series/COMMIT.needs file is left out for a tree
# where one of its conditions does not hold (the file says why).  The
# export goes to a temporary directory, moved into place when git am on a
# copy of the tree gives the expected files; no per-patch builds (make
# check builds the series' files on each Debian version).  A LINUX= that
# is not a 6.1 tree, a tree that already carries the series or an unknown
# DEBIAN_VERSION= ends with one line and writes nothing.
#
# The author of every patch (From: and the first Signed-off-by:) is the
# one of harness/series/AUTHOR, whoever exports; "git am -s" adds the
# vendor's Signed-off-by after it.
#
#   SERIES_OUT=DIR       where the patches go (default build/series; the
#                        checkpatch reports go to DIR-checkpatch)
#   SERIES_AM=DIR        the git am checkout (default build/series-am)
#   SERIES_CHECKPATCH=0  no checkpatch (make check's per-version exports)
#
# patches/series decides which file goes into which commit and the order
# of the commits (see the comment at its top); the messages are
# harness/series/COMMIT.txt (first line: subject), the cover letter
# harness/series/00-cover.txt, completed with get_maintainer.pl's output.
#
# build/series.git holds pristine 6.1 as the commit "base" (made once);
# the commits are made from the assembled files without a checkout.
# Output: build/series/*.patch, build/series-checkpatch/, the git am
# checkout build/series-am.
#
# The per-patch builds use the release config (build/kconfig-release)
# plus CONFIG_KUNIT, so that the KUnit patch is compiled too, plus
# CONFIG_COMPILE_TEST while kernel/trace/Kconfig still makes USER_EVENTS
# depend on BROKEN || COMPILE_TEST: every step compiles the user_events
# code.  They run in the worktree build/series-build with O=build/obj-series
# and CC="ccache gcc" (UE_CCACHE_DIR); a step whose tree and config were
# built before is not built again.  A warning in a file of the series
# fails the step.  The global build lock is held only until the export
# and the checks are done; the builds hold build/.series-lock.
#
#   SERIES_BUILD=0       skip the per-patch builds
#   SERIES_BUILD=force   rebuild every step, ignoring earlier results
#
# Exits 1 if any check fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tap=
if [ "${1:-}" = --tap ]; then
	tap=${2:?usage: series.sh [--tap FILE]}
	: > "$tap"
fi
build_mode=${SERIES_BUILD:-1}
[ -z "$tap" ] || build_mode=0

msgs=$UE_REPO/harness/series
out=$(realpath -m "${SERIES_OUT:-$B/series}")
cpdir=$out-checkpatch
G=$B/series.git
am=$(realpath -m "${SERIES_AM:-$B/series-am}")
bwt=$B/series-build
obj=$B/obj-series
kc=$B/kconfig-series
# no git call of the harness may leave a "git gc --auto" behind that
# inherits the build lock (fd 9)
sgit() { git -c gc.auto=0 -c maintenance.auto=false --git-dir="$G" "$@" 9>&-; }

# ---------------------------------------------------------------------------
# 0. Which tree: pristine 6.1 (the default), or LINUX= / DEBIAN_VERSION=
# ---------------------------------------------------------------------------
linux='' deb='' what=''
if [ -z "$tap" ]; then
	linux=${LINUX:-} deb=${DEBIAN_VERSION:-}
fi
[ -z "$linux" ] || [ -z "$deb" ] || die "give LINUX= or DEBIAN_VERSION=, not both"
# (an export against another tree installs only what it needs)
[ -z "$linux$deb" ] || "$UE_REPO/harness/deps.sh" export
if [ -n "$deb" ]; then
	linux=$(debian_tree "$deb") || exit 1
fi
if [ -n "$linux" ]; then
	[ -d "$linux" ] || die "LINUX=$linux: no such directory"
	linux=$(realpath "$linux")
	kv=$(kernel_version "$linux")
	[[ $kv == 6.1 || $kv == 6.1.* ]] && [ -f "$linux/kernel/trace/trace_events.c" ] ||
		die "LINUX=$linux is not a Linux 6.1 source tree (its Makefile says ${kv:-no version})"
	what="Linux $kv${deb:+ (Debian linux-source-6.1 $deb)}"
	# a tree that carries the series (or another bit-enable user_events)
	if grep -qs 'DIAG_IOCSUNREG' "$linux/include/uapi/linux/user_events.h"; then
		die "LINUX=$linux already carries the series or another bit-enable user_events ABI (include/uapi/linux/user_events.h defines DIAG_IOCSUNREG)"
	fi
	for pf in "$UE_REPO"/patches/*.patch; do
		if patch -s -p1 -R --dry-run --fuzz=0 -f -d "$linux" -i "$pf" >/dev/null 2>&1; then
			die "LINUX=$linux already carries the series: patches/${pf##*/} is applied there"
		fi
	done
	[ "${SERIES_BUILD:-0}" = 0 ] || log "LINUX=: no per-patch builds (make check builds the series' files on each Debian version)"
	build_mode=0
fi

failed=0
# result OK|FAIL TEXT [DETAIL...]: one check; a TAP line in --tap mode
result()
{
	local st=$1 text=$2
	shift 2
	[ "$st" = OK ] || failed=1
	if [ -n "$tap" ]; then
		{
			[ "$st" = OK ] && echo "ok - series: $text" || echo "not ok - series: $text"
			[ $# -eq 0 ] || printf '    # %s\n' "$@"
		} >> "$tap"
	else
		log "$([ "$st" = OK ] && echo ok || echo FAILED): $text"
		[ $# -eq 0 ] || printf '    %s\n' "$@" >&2
	fi
}

# ---------------------------------------------------------------------------
# 1. Under the global build lock: the table, the commits, the export, git am,
#    get_maintainer, checkpatch
# ---------------------------------------------------------------------------
if [ -z "$tap" ]; then
	[ -n "$linux" ] || "$UE_REPO/harness/deps.sh"
	locked_here=
	[ -n "${UE_LOCKED:-}" ] || locked_here=1
	lock_build
	[ -n "$linux" ] || "$UE_REPO/harness/assemble.sh"
	[ "$build_mode" = 0 ] || "$UE_REPO/harness/config.sh" release
fi

# SRC: the tree the series is made against; FIN: the files the series
# gives it (the assembled tree, or a staging area for LINUX=); MAN: the
# paths the series owns there; BASE: SRC as a commit of $G
if [ -z "$linux" ]; then
	SRC=$PRISTINE FIN=$TREE MAN=$B/linux.manifest BASE=refs/tags/base SREF=series
	fuzz=(--fuzz=0) tmpd=
else
	SRC=$linux tmpd=$B/tmp/series-linux
	FIN=$tmpd/stage MAN=$tmpd/manifest SREF=series-linux
	key=$(printf '%s' "$linux" | sha1sum | cut -c1-12)
	BASE=refs/linux/$key
	fuzz=()
	rm -rf "$tmpd" "$out.new"
	mkdir -p "$tmpd"
fi

# The table: COMMIT -> final paths, partial paths
rows=$(series_rows) || exit 1

# needs_commit COMMIT: whether the tree SRC needs COMMIT, by the conditions
# of harness/series/COMMIT.needs ("has|lacks PATH ERE -- REASON" lines:
# PATH of the tree matches, or does not match, the extended regex); prints
# the reason of the first condition that does not hold
needs_commit()
{
	local nf=$msgs/$1.needs kind path re why
	[ -f "$nf" ] || return 0
	while read -r kind path re why; do
		[[ -n $kind && $kind != \#* ]] || continue
		why=${why#-- }
		case $kind in
		has) grep -qsE -- "$re" "$SRC/$path" || { echo "$why"; return 1; } ;;
		lacks) ! grep -qsE -- "$re" "$SRC/$path" || { echo "$why"; return 1; } ;;
		*) die "harness/series/$1.needs: '$kind $path $re': expected has|lacks PATH ERE -- REASON" ;;
		esac
	done < "$nf"
	return 0
}

# apply_patch DIR PATCH: patch -p1 in DIR (fuzz as for SRC); on failure
# name each hunk that does not apply and return 1; offsets and fuzz are
# noted in $notes
apply_patch()
{
	local dir=$1 pf=$2 o
	if o=$(patch -p1 -d "$dir" "${fuzz[@]}" --forward --no-backup-if-mismatch --batch \
	       --reject-file=- -i "$pf" 2>&1); then
		case $o in *fuzz*|*offset*)
			printf '%s\n' "$o" | awk -v p="${pf##*/}" '
				/^patching file / { f = $3 }
				/succeeded at .*(fuzz|offset)/ { sub(/^Hunk /, ""); print "patches/" p ": " f " hunk " $0 }' \
				>> "${notes:-/dev/null}" ;;
		esac
		return 0
	fi
	# (a hunk already in the tree: patch skips the file, say so)
	printf '%s\n' "$o" | grep -v -e '^patching file' -e '^Hunk #[0-9]* FAILED' \
		-e 'hunks\{0,1\} FAILED' -e '^Hunk #[0-9]* succeeded' | sed 's/^/[harness]   /' >&2
	printf '%s\n' "$o" | awk '
		/^(patching|checking) file / { f = $3 }
		/^Hunk #[0-9]+ FAILED/ { n = substr($2, 2) + 0; print f "\t" n }' |
	while IFS=$'\t' read -r f n; do
		# the hunk's header and its first changed line
		awk -v f="$f" -v n="$n" '
			/^\+\+\+ / { p = $2; sub(/^b\//, "", p); in_f = (p == f); h = 0; next }
			in_f && /^@@ / { h++; if (h == n) hdr = $0; next }
			in_f && h == n && first == "" {
				if (/^[-+]/) first = $0; else if (/^ ./) ctx = substr($0, 2) }
			END {
				gsub(/\t/, "        ", ctx)
				sub(/^ +/, "", ctx)
				printf "[harness]   %s: hunk #%d (%s) does not apply: it expects \"%s\" before its first change \"%s\"\n", f, n, hdr, ctx, first }' "$pf" >&2
	done
	return 1
}

needs_note='' notes=''
if [ -n "$linux" ]; then
	notes=$tmpd/notes
	: > "$notes"
	# A git work tree gives its tracked files, a plain tree every file
	# (whatever its .gitignore says: Debian's ignores "/*")
	gitwt=
	if [ "$(git -C "$linux" rev-parse --show-toplevel 2>/dev/null)" = "$linux" ]; then
		gitwt=1
		git -C "$linux" ls-files -z > "$tmpd/tracked"
		if [ ! -s "$tmpd/tracked" ]; then
			rm -rf "$tmpd"
			die "LINUX=$linux is a git work tree without tracked files: commit the tree first (Debian's tree ignores everything: git add -f .)"
		fi
		git -C "$linux" ls-files -- "${UE_OLD_DIRS[@]}" | sort > "$tmpd/deleted"
	else
		(cd "$linux" && find "${UE_OLD_DIRS[@]}" -type f 2>/dev/null || true) | sort > "$tmpd/deleted"
	fi

	# commits this tree does not need: out of the table
	dropped=()
	while IFS=$'\t' read -r _ commit _; do
		[[ " ${dropped[*]} " != *" $commit "* ]] || continue
		if ! why=$(needs_commit "$commit"); then
			dropped+=("$commit")
			needs_note+="- $(head -n1 "$msgs/$commit.txt"): $why"$'\n'
			log "left out $commit: $why"
		fi
	done <<< "$rows"
	for c in "${dropped[@]}"; do
		! grep -q "^path"$'\t'"$c"$'\t' <<< "$rows" ||
			die "harness/series/$c.needs: only a commit of patches (no overlay path) can be left out"
		rows=$(grep -v "^[a-z]*"$'\t'"$c"$'\t' <<< "$rows")
	done

	# FIN: the overlay, the patches applied to SRC's files, the old files
	# that go away; a hunk that does not apply stops here
	(cd "$UE_REPO" && git ls-files -co --exclude-standard -- "${UE_OVERLAY_DIRS[@]}") |
	while IFS= read -r f; do
		[ -f "$UE_REPO/$f" ] || continue
		mkdir -p "$FIN/$(dirname "$f")"
		cp -p "$UE_REPO/$f" "$FIN/$f"
	done
	while IFS=$'\t' read -r kind commit p _; do
		[ "$kind" = patch ] || continue
		[ -f "$UE_REPO/patches/$p" ] || die "patches/$p listed in patches/series but missing"
		while IFS= read -r f; do
			if [ ! -e "$FIN/$f" ] && [ -f "$SRC/$f" ] && ! grep -qxF "$f" "$tmpd/deleted"; then
				mkdir -p "$FIN/$(dirname "$f")"
				cp -p "$SRC/$f" "$FIN/$f"
			fi
		done < <(patch_files "$UE_REPO/patches/$p")
		if ! apply_patch "$FIN" "$UE_REPO/patches/$p"; then
			[ ${#dropped[@]} = 0 ] || log "(left out for this tree: ${dropped[*]})"
			rm -rf "$tmpd"
			die "refused: patches/$p ($commit) conflicts with $linux (the hunks above); nothing written"
		fi
	done <<< "$rows"
	(cd "$FIN" && find . -type f | sed 's|^\./||') | sort -u - "$tmpd/deleted" > "$MAN"

	# SRC as a commit of $G; a plain tree keeps its index, so that only
	# its changed files are hashed again
	[ -e "$G/HEAD" ] || git init -q --bare "$G"
	sgit config gc.auto 0
	mkdir -p "$B/series-trees"
	idx=$B/series-trees/$key.index
	echo "$linux" > "$B/series-trees/$key.path"
	if [ -n "$gitwt" ]; then
		rm -f "$idx"
		log "hashing the tracked files of $linux"
		(cd "$linux" && xargs -0 -r sh -c 'for f; do if [ -f "$f" ]; then printf "%s\0" "$f"; fi; done' sh) \
			< "$tmpd/tracked" |
			(cd "$linux" && GIT_INDEX_FILE=$idx git -c gc.auto=0 --git-dir="$G" --work-tree=. \
				update-index --add -z --stdin 9>&-)
	else
		[ -f "$idx" ] || log "hashing the files of $linux (once for this tree, ~1 min)"
		(cd "$linux" && GIT_INDEX_FILE=$idx git -c gc.auto=0 --git-dir="$G" --work-tree=. \
			add -A -f . 9>&-)
	fi
	btree=$(GIT_INDEX_FILE=$idx sgit write-tree)
	sgit update-ref "$BASE" "$(sgit commit-tree -m "$what ($linux)" "$btree" </dev/null)"
fi
mapfile -t manifest < "$MAN"
declare -A final=() nrows=()
# steps: "FILE<TAB>COMMIT<TAB>PATCH" for a patch of FILE that a later
# patch of it follows (FILE then changes in several commits)
commits=() errs=() steps=() lastc=
while IFS=$'\t' read -r kind commit item _; do
	if [ "$commit" != "$lastc" ]; then
		commits+=("$commit")
		lastc=$commit
		[ -f "$msgs/$commit.txt" ] || errs+=("no message harness/series/$commit.txt for $commit")
	fi
	[ "$kind" != partial ] || continue
	key="$commit $item"
	nrows[$key]=0
	case $kind in
	patch)
		[ -f "$UE_REPO/patches/$item" ] || { errs+=("patches/$item is missing"); continue; }
		paths=$(patch_files "$UE_REPO/patches/$item")
		;;
	path) paths=$(printf '%s\n' "${manifest[@]}") ;;
	esac
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		# shellcheck disable=SC2053 # ITEM is a glob
		[ "$kind" = patch ] || [[ $f == $item ]] || continue
		nrows[$key]=$((nrows[$key] + 1))
		if [ -n "${final[$f]:-}" ] && [ "$kind" = patch ] &&
		   [[ ${final[$f]#* } == *.patch ]]; then
			steps+=("$f"$'\t'"${final[$f]% *}"$'\t'"${final[$f]#* }")
			final[$f]="$commit $item"
		elif [ -n "${final[$f]:-}" ]; then
			errs+=("$f is brought by two rows: ${final[$f]} and $commit $item")
		else
			final[$f]="$commit $item"
		fi
	done <<< "$paths"
done <<< "$rows"
for key in "${!nrows[@]}"; do
	[ "${nrows[$key]}" != 0 ] || errs+=("the row '$key' matches no file of the assembled tree")
done
for f in "${manifest[@]}"; do
	[ -n "${final[$f]:-}" ] || errs+=("$f (assembled) is in no row of patches/series")
done
while IFS=$'\t' read -r kind commit item _; do
	[ "$kind" = partial ] || continue
	if [ -z "${final[$item]:-}" ]; then
		errs+=("the partial row '$commit $item' names a file no row brings")
	elif [[ ! ${final[$item]%% *} > $commit ]]; then
		errs+=("the partial row '$commit $item' is not before ${final[$item]}, which brings the final file")
	fi
done <<< "$rows"
if [ ${#errs[@]} -gt 0 ]; then
	result FAIL "patches/series places every file of the assembled tree once" "${errs[@]}"
	exit 1
fi
result OK "patches/series places every file of the assembled tree once (${#commits[@]} commits)"

# The series' author, whoever exports (harness/series/AUTHOR)
ident=$(series_author)
export GIT_AUTHOR_NAME=${ident% <*} GIT_AUTHOR_EMAIL=${ident##*<}
GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL

if [ -z "$linux" ] && ! sgit rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	log "creating the pristine base repo build/series.git (once, ~1-2 min)"
	if [ -e "$G/HEAD" ]; then
		# made by an export against another tree: keep its objects
		rm -f "$B/series.index"
	else
		rm -rf "$G"
		git init -q --bare "$G"
	fi
	(cd "$PRISTINE" && GIT_INDEX_FILE=$B/series.index git -c gc.auto=0 --git-dir="$G" \
		--work-tree=. add -A -f . 9>&-)
	tree=$(GIT_INDEX_FILE=$B/series.index sgit write-tree)
	sgit tag base "$(sgit commit-tree -m "Linux 6.1 (Debian linux-source-6.1)" "$tree")"
fi
# git am in the checkout reads the repo's config: no "gc --auto" there
[ "$(sgit config gc.auto)" = 0 ] || sgit config gc.auto 0

# stage_file FILE [CONTENT-FILE]: put FILE (from the tree, or CONTENT-FILE)
# into the index, or remove it when the tree has no such file
stage_file()
{
	local f=$1 src=${2:-$FIN/$1} mode=100644 blob
	if [ -f "$FIN/$f" ]; then
		[ -x "$FIN/$f" ] && mode=100755
		blob=$(sgit hash-object -w "$src")
		sgit update-index --add --cacheinfo "$mode,$blob,$f"
	else
		sgit update-index --force-remove "$f"
	fi
}

# partial FILE REGEX...: FILE's final content without the matches of each
# REGEX, in order.  A REGEX "@NAME" stands for the regexes of
# harness/series/NAME, one a line ("#" and "# ..." lines are comments,
# empty lines are left out).  Each regex must match exactly once, or
# exactly N times when its line starts with "[N] ": a later edit that a
# regex also matches then stops the export instead of moving code into
# the wrong commit.  "@NAME.diff" is a unified diff of the file, what
# the next commit changes in it (an edit rather than an addition, such
# as an optimisation): it is applied in reverse, with no fuzz.
partial()
{
	python3 - "$msgs" "$@" <<'PY'
import re, subprocess, sys, tempfile
d, f, pats = sys.argv[1], sys.argv[2], sys.argv[3:]
s = open(f).read()
for p in pats:
    if p.startswith('@') and p.endswith('.diff'):
        with tempfile.TemporaryDirectory() as t:
            open(t + '/f', 'w').write(s)
            r = subprocess.run(['patch', '-R', '-s', '-F0', '--batch', '--reject-file=-',
                                '--no-backup-if-mismatch', '-o', t + '/out', t + '/f',
                                '%s/%s' % (d, p[1:])], capture_output=True, text=True)
            if r.returncode:
                sys.exit("-%s does not apply in reverse to %s: %s" %
                         (p, f, (r.stdout + r.stderr).strip().replace('\n', ' ')))
            s = open(t + '/out').read()
        continue
    if p.startswith('@'):
        name = p[1:]
        lines = [(n, l) for n, l in enumerate(open('%s/%s' % (d, name)).read().split('\n'), 1)
                 if l.strip() and l != '#' and not l.startswith('# ')]
    else:
        lines = [(0, p)]
    for n, r in lines:
        want = 1
        m = re.match(r'\[(\d+)\] ', r)
        if m and n:
            want, r = int(m.group(1)), r[m.end():]
        s, k = re.subn(r, '', s, flags=re.M)
        if k != want:
            at = ' (harness/series/%s:%d)' % (p[1:], n) if n else ''
            sys.exit("-%s%s matches %d times in %s, not %d" % (r, at, k, f, want))
sys.stdout.write(s)
PY
}

# patched_upto FILE PATCH: FILE of SRC with the patches of the table
# applied in order up to PATCH, in $B/series.step/FILE
patched_upto()
{
	local f=$1 upto=$2 kind p g d=$B/series.step
	rm -rf "$d" && mkdir -p "$d"
	while IFS=$'\t' read -r kind _ p _; do
		[ "$kind" = patch ] || continue
		patch_files "$UE_REPO/patches/$p" | grep -qxF "$f" || continue
		while IFS= read -r g; do
			[ -e "$d/$g" ] || [ ! -f "$SRC/$g" ] ||
				{ mkdir -p "$d/$(dirname "$g")" && cp "$SRC/$g" "$d/$g"; }
		done < <(patch_files "$UE_REPO/patches/$p")
		patch -s -p1 -d "$d" "${fuzz[@]}" --forward --batch --reject-file=- \
			-i "$UE_REPO/patches/$p" >/dev/null || return 1
		[ "$p" != "$upto" ] || return 0
	done <<< "$rows"
	return 1
}

export GIT_INDEX_FILE=$B/series.index
[ -z "$linux" ] || GIT_INDEX_FILE=$tmpd/index
sgit read-tree "$BASE"
head=$(sgit rev-parse "$BASE")
errs=()
for c in "${commits[@]}"; do
	for f in "${manifest[@]}"; do
		[ "${final[$f]%% *}" = "$c" ] && stage_file "$f"
	done
	for st in "${steps[@]}"; do
		IFS=$'\t' read -r f commit item <<< "$st"
		[ "$commit" = "$c" ] && [ "${final[$f]%% *}" != "$c" ] || continue
		if patched_upto "$f" "$item"; then
			stage_file "$f" "$B/series.step/$f"
		else
			errs+=("$c $item: $f does not patch in table order")
		fi
	done
	while IFS=$'\t' read -r kind commit item filters; do
		[ "$kind" = partial ] && [ "$commit" = "$c" ] || continue
		# the version of the next partial row of the file (the final
		# content after the last one) without what this row removes:
		# the filters of this and every later partial row, the last
		# row's first
		chain=$(awk -F'\t' -v c="$commit" -v f="$item" \
			'$1 == "partial" && $3 == f && $2 == c { on = 1 }
			 on && $1 == "partial" && $3 == f { print $4 }' <<< "$rows" | tac | tr '\n' ' ')
		read -r -a res <<< "$chain"
		if partial "$FIN/$item" "${res[@]}" > "$B/series.partial" 2> "$B/series.partial.err"; then
			stage_file "$item" "$B/series.partial"
		else
			errs+=("$c $item: $(tail -n1 "$B/series.partial.err")")
		fi
	done <<< "$rows"
	tree=$(sgit write-tree)
	if [ "$tree" = "$(sgit rev-parse "$head^{tree}")" ]; then
		errs+=("$c changes nothing")
		continue
	fi
	# Signed-off-by joins the message's trailer block (Fixes: ...), if any
	sep='\n'
	tail -n1 "$msgs/$c.txt" | grep -qE '^[A-Z][A-Za-z-]*: ' && sep=
	msg=$(cat "$msgs/$c.txt"; printf "$sep"'Signed-off-by: %s <%s>\n' "$GIT_AUTHOR_NAME" "$GIT_AUTHOR_EMAIL")
	head=$(sgit commit-tree -p "$head" -m "$msg" "$tree")
done
rm -rf "$B/series.partial" "$B/series.partial.err" "$B/series.step"
unset GIT_INDEX_FILE
sgit update-ref "refs/heads/$SREF" "$head"

# The last commit holds exactly the assembled files
for f in "${manifest[@]}"; do
	want=absent
	[ -f "$FIN/$f" ] && want=$(sgit hash-object "$FIN/$f")
	got=$(sgit rev-parse -q --verify "$SREF:$f" 2>/dev/null || echo absent)
	[ "$want" = "$got" ] || errs+=("$f: the last commit does not hold its assembled content")
done
if [ ${#errs[@]} -gt 0 ]; then
	result FAIL "the commits of patches/series end with the assembled tree" "${errs[@]}"
	exit 1
fi
result OK "the commits of patches/series end with the assembled tree"

# Into $out.new, moved into place at the end
rm -rf "$out.new"
sgit format-patch -q --cover-letter --thread=shallow -o "$out.new" "$BASE..$SREF"
cover=$(ls "$out.new"/0000-*.patch)
mapfile -t patches < <(ls "$out.new"/*.patch | grep -v '/0000-')
mapfile -t shas < <(sgit rev-list --reverse "$BASE..$SREF")
result OK "exported ${#patches[@]} patches and a cover letter to ${out#"$UE_REPO"/}${linux:+ (against $what)}"

# git am on a checkout of the base (kept under build/, reset each time)
if [ ! -e "$am/.git" ]; then
	log "checking out ${what:-pristine 6.1} in ${am#"$UE_REPO"/} for the git am check (once, ~30 s)"
	rm -rf "$am"
	sgit worktree prune
	sgit worktree add -q --detach "$am" "$BASE"
fi
amlog=$B/series-am.log
[ -z "$linux" ] || amlog=$out-am.log
amwhat="git am applies the ${#patches[@]} patches to ${what:-pristine 6.1} and gives the assembled tree"
amok=0
if (
	cd "$am"
	git am --abort >/dev/null 2>&1 || true
	git checkout -q -f --detach "$BASE"
	git clean -q -fdx
	git -c gc.auto=0 -c maintenance.auto=false am --whitespace=warn "${patches[@]}"
) > "$amlog" 2>&1 9>&-; then
	if [ "$(git -C "$am" rev-parse "HEAD^{tree}")" = "$(sgit rev-parse "$SREF^{tree}")" ]; then
		amok=1
		result OK "$amwhat"
	else
		result FAIL "$amwhat" "the tree after git am differs (${am#"$UE_REPO"/})"
	fi
else
	mapfile -t amtail < <(tail -n 15 "$amlog")
	result FAIL "$amwhat" "${amtail[@]}"
fi
# what git am warns about, a maintainer sees too
mapfile -t ws < <(awk '/^Applying: / { p = substr($0, 11) }
	/: (space before tab in indent|trailing whitespace|new blank line at EOF|indent with spaces)\.$/ {
		sub(/^.*rebase-apply\/patch:[0-9]+: /, ""); n[p ": " $0]++ }
	END { for (k in n) print k " (" n[k] " lines)" }' "$amlog")
if [ ${#ws[@]} -eq 0 ]; then
	result OK "git am reports no whitespace errors"
else
	result FAIL "git am reports no whitespace errors" "${ws[@]:0:10}" "full log: ${amlog#"$UE_REPO"/}"
fi

# MAINTAINERS: the lines the series adds name nobody but its author, the
# identity of harness/series/AUTHOR (whoever exports)
names=$(sgit diff "$BASE" "$SREF" -- MAINTAINERS | sed -n 's/^+\([MR]\):[[:space:]]*//p' | sort -u)
others=$(grep -vxF -- "$ident" <<< "$names" || true)
if [ -z "$names" ]; then
	result FAIL "MAINTAINERS: the series adds an entry whose M: is its author" "no M: line added"
elif [ -n "$others" ]; then
	mapfile -t o <<< "$others"
	result FAIL "MAINTAINERS: the series names nobody but its author ($ident)" "${o[@]}"
else
	result OK "MAINTAINERS: the series names nobody but its author ($ident)"
fi

# get_maintainer.pl, git-free, on the series as applied: into the cover
# letter (in the background, next to checkpatch)
if [ $amok = 1 ]; then
	# (--nofixes: the commits of Fixes: tags are not in this history; its
	# complaints must not end up in the cover letter)
	(cd "$am" && ./scripts/get_maintainer.pl --nogit --nogit-fallback --nofixes "${patches[@]}") \
		> "$B/series-maintainers.txt" 2> "$B/series-maintainers.err" &
	gm_pid=$!
fi

# checkpatch --strict of every patch (the cover letter is no patch), $JOBS
# at a time; one result each
declare -A cpres=()
if [ "${SERIES_CHECKPATCH:-1}" = 0 ]; then
	log "checkpatch skipped (SERIES_CHECKPATCH=0)"
else
	rm -rf "$cpdir"
	mkdir -p "$cpdir"
	# (--ignore UNKNOWN_COMMIT_ID: without the kernel's git history no commit
	# id of a Fixes: tag can be looked up here)
	cptree=$PRISTINE
	[ -z "$linux" ] || cptree=$am
	printf '%s\0' "${patches[@]}" | (cd "$cptree" && xargs -0 -P "$JOBS" -I{} sh -c \
		'./scripts/checkpatch.pl --strict --no-color --ignore UNKNOWN_COMMIT_ID "$1" > "$2/$(basename "$1" .patch).txt" 2>&1' \
		sh {} "$cpdir") || true
	for ((i = 0; i < ${#patches[@]}; i++)); do
		p=${patches[i]}
		name=$(basename "$p" .patch)
		pwhat="patch $((i + 1))/${#patches[@]} ($(head -n1 "$msgs/${commits[i]}.txt"))"
		cplog=$cpdir/$name.txt
		read -r e w c <<< "$(sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p' "$cplog")"
		cpres[$name]="${e:-?} err, ${w:-?} warn, ${c:-?} chk"
		if [ "${e:-1}" = 0 ] && [ "${w:-1}" = 0 ]; then
			result OK "checkpatch --strict $pwhat: ${c} checks"
		else
			mapfile -t cpl < <(grep -E '^(ERROR|WARNING):' "$cplog" | head -20)
			result FAIL "checkpatch --strict $pwhat: ${e:-?} errors, ${w:-?} warnings, ${c:-?} checks" \
				"${cpl[@]}" "full report: ${cplog#"$UE_REPO"/}"
		fi
	done
fi

if [ $amok = 1 ]; then
	wait $gm_pid || die "get_maintainer.pl failed: $(cat "$B/series-maintainers.err")"
	# against another tree, the cover letter says which, and what it
	# leaves out
	note=
	if [ -n "$linux" ]; then
		how="LINUX=..."
		[ -z "$deb" ] || how="DEBIAN_VERSION=$deb"
		note="This copy of the series is exported against $what by \"make series $how\": its diffs are made against that tree."
		[ -z "$needs_note" ] || note+=" It leaves out what that tree does not need:"$'\n\n'"$needs_note"
	fi
	python3 - "$cover" "$msgs/00-cover.txt" "$B/series-maintainers.txt" "$note" <<'PY'
import sys, textwrap
path, blurb = sys.argv[1], open(sys.argv[2]).read().split('\n', 1)
roles = ''.join('  ' + l for l in open(sys.argv[3]))
head, _, rest = sys.argv[4].strip().partition('\n\n')
fill = lambda t, **kw: textwrap.fill(t, 72, break_on_hyphens=False, break_long_words=False, **kw)
note = fill(head) + ('\n\n' + '\n'.join(
    fill(l, subsequent_indent='  ') for l in rest.split('\n')) if rest else '')
body = (blurb[1].strip() + '\n\n' + (note + '\n\n' if note else '') +
        'scripts/get_maintainer.pl --nogit --nogit-fallback --nofixes on the series:\n\n' + roles.rstrip())
s = open(path).read()
s = s.replace('*** SUBJECT HERE ***', blurb[0]).replace('*** BLURB HERE ***', body)
open(path, 'w').write(s)
PY
fi

# Into place: always for pristine 6.1 (the checks above say what is
# wrong), for another tree only when git am applies it there
if [ -n "$linux" ] && [ $amok != 1 ]; then
	rm -rf "$out.new" "$tmpd"
	die "the export against $linux does not give the expected tree with git am (log: ${amlog#"$UE_REPO"/}); ${out#"$UE_REPO"/} left as it was"
fi
rm -rf "$out"
mv "$out.new" "$out"
if [ -n "$linux" ]; then
	if [ -s "$notes" ]; then
		log "hunks applied with offsets or fuzz to $linux (listed in ${out#"$UE_REPO"/}.offsets):"
		sed 's/^/[harness]   /' "$notes" >&2
	fi
	cp "$notes" "$out.offsets"
	rm -rf "$tmpd"
fi

# The patch list
echo "Series in ${out#"$UE_REPO"/}${linux:+ for $what}: $(head -n1 "$msgs/00-cover.txt")"
for ((i = 0; i < ${#shas[@]}; i++)); do
	printf '  %04d %s\n' $((i + 1)) "$(sgit log -1 --format=%s "${shas[i]}")"
done
[ -n "$tap" ] && exit $failed
[ -z "$linux" ] || exit $failed

# ---------------------------------------------------------------------------
# 2. Under the series lock only: the per-patch builds
# ---------------------------------------------------------------------------
if [ "$build_mode" = 0 ]; then
	log "per-patch builds skipped (SERIES_BUILD=0)"
	exit $failed
fi
mkdir -p "$B/series-cfg"
cp "$B/kconfig-release/.config" "$B/series-cfg/release.config"
if [ -n "$locked_here" ]; then
	flock -u 9
	exec 9>&-
	unset UE_LOCKED
fi
exec 8> "$B/.series-lock"
if ! flock -n 8; then
	log "waiting for the builds of another make series"
	flock 8
fi

# build_config COMMIT: write the step's .config into $kc and describe it
build_config()
{
	local frag=$B/series-cfg/frag.config what=release+KUNIT
	printf 'CONFIG_KUNIT=y\nCONFIG_USER_EVENTS_KUNIT_TEST=y\n' > "$frag"
	# (not "| grep -q": under pipefail, git's SIGPIPE when grep stops
	# early would read as "no match")
	if [[ $(sgit show "$1:kernel/trace/Kconfig") == *'depends on BROKEN || COMPILE_TEST'* ]]; then
		echo 'CONFIG_COMPILE_TEST=y' >> "$frag"
		what=release+KUNIT+COMPILE_TEST
	fi
	mkdir -p "$kc"
	"$bwt/scripts/kconfig/merge_config.sh" -m -O "$kc" "$B/series-cfg/release.config" "$frag" \
		> "$kc/merge.log" 2>&1 || { cat "$kc/merge.log" >&2; return 1; }
	make -s -C "$bwt" O="$kc" CC="$KCC" olddefconfig > "$kc/make.log" 2>&1 || { cat "$kc/make.log" >&2; return 1; }
	grep -qx 'CONFIG_USER_EVENTS=y' "$kc/.config" || { log "CONFIG_USER_EVENTS did not land"; return 1; }
	grep -qx 'CONFIG_USER_EVENTS_KUNIT_TEST=y' "$kc/.config" && what="$what, kunit on"
	echo "$what"
}

ccstat() { ccache --print-stats 2>/dev/null | awk -v k="$1" '$1 == k { print $2 }'; }
if [ "$KCC" != gcc ]; then
	hits0=$(( $(ccstat direct_cache_hit) + $(ccstat preprocessed_cache_hit) ))
	miss0=$(ccstat cache_miss)
fi

if [ ! -e "$bwt/.git" ]; then
	log "checking out pristine 6.1 in ${bwt#"$UE_REPO"/} for the per-patch builds (once, ~30 s)"
	rm -rf "$bwt"
	sgit worktree prune
	sgit worktree add -q --detach "$bwt" base
fi
log "building the release kernel after each patch (O=${obj#"$UE_REPO"/}, CC=$KCC; SERIES_BUILD=0 skips)"
mkdir -p "$obj"
touch "$obj/.ue-series-ok"
[ "$build_mode" != force ] || : > "$obj/.ue-series-ok"
table=$B/series-table.txt
# lines the patch removes and adds, as git counts them
diff_lines()
{
	git apply --numstat "$1" | awk '{ a += $1; d += $2 } END { printf "-%d/+%d", d, a }'
}
printf '%-64s %-12s %-26s %s\n' "Patch (build/series/)" "lines" "checkpatch --strict" "build" > "$table"
broken=
for ((i = 0; i < ${#patches[@]}; i++)); do
	name=$(basename "${patches[i]}" .patch)
	commit=${shas[i]}
	if [ $amok = 0 ]; then
		bres="not built (git am failed)"
	elif [ -n "$broken" ]; then
		bres="not built (an earlier step failed)"
	else
		git -C "$bwt" checkout -q -f --detach "$commit"
		if ! what=$(build_config "$commit"); then
			bres="FAILED (config)"
			broken=$name
		else
			key="$(sgit rev-parse "$commit^{tree}") $(sha1sum < "$kc/.config" | cut -c1-40)"
			if grep -qxF "$key" "$obj/.ue-series-ok"; then
				bres="OK (built before with the same tree and config; $what)"
			else
				cmp -s "$kc/.config" "$obj/.config" || cp "$kc/.config" "$obj/.config"
				start=$SECONDS
				slog=$obj/step-$((i + 1)).log
				total=$(cat "$obj/.ue-objects" 2>/dev/null || echo 1100)
				# then the series' own object again with W=1 (the other
				# files it changes have W=1 warnings of 6.1's own)
				if nice -n 10 make -C "$bwt" O="$obj" CC="$KCC" -j"$JOBS" bzImage 2>&1 |
				   kbuild_progress "$slog" "patch $((i + 1))/${#patches[@]}" "$total" &&
				   nice -n 10 make -C "$bwt" O="$obj" CC="$KCC" W=1 \
					kernel/trace/trace_events_user.o >> "$slog" 2>&1; then
					bres="OK $((SECONDS - start)) s ($what)"
					find "$obj" -name '.*.o.cmd' | wc -l > "$obj/.ue-objects"
					warn=$(our_warnings "$slog" "$bwt" | cut -f2-)
					if [ -n "$warn" ]; then
						printf '%s\n' "$warn" | head -20 >&2
						bres="FAILED: $(wc -l <<< "$warn") warning(s) in the series' files (log: ${slog#"$UE_REPO"/})"
						broken=$name
					else
						echo "$key" >> "$obj/.ue-series-ok"
					fi
				else
					bres="FAILED after $((SECONDS - start)) s ($what; log: ${slog#"$UE_REPO"/})"
					broken=$name
					grep -E 'error' -A3 "$slog" | head -30 >&2
				fi
			fi
		fi
	fi
	printf '%-64s %-12s %-26s %s\n' "$name" "$(diff_lines "$out/$name.patch")" "${cpres[$name]}" "$bres" |
		tee -a "$table"
done

if [ "$KCC" != gcc ]; then
	hits=$(( $(ccstat direct_cache_hit) + $(ccstat preprocessed_cache_hit) - hits0 ))
	log "ccache ($CCACHE_DIR): $hits hits, $(( $(ccstat cache_miss) - miss0 )) misses"
fi
echo "build: make bzImage, then trace_events_user.o with W=1, in ${obj#"$UE_REPO"/} at each commit;"
echo "  release = the release config (build/kconfig-release),"
echo "  +KUNIT so that the KUnit patch compiles, +COMPILE_TEST while kernel/trace/Kconfig still has"
echo "  USER_EVENTS depend on BROKEN || COMPILE_TEST: every step compiles trace_events_user.c"
if [ -n "$broken" ]; then
	echo "BUILD BROKEN by $broken: the kernel does not build (or warns) after this patch"
	failed=1
fi
exit $failed
