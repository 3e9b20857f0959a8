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
out=$B/series
G=$B/series.git
am=$B/series-am
bwt=$B/series-build
obj=$B/obj-series
kc=$B/kconfig-series
sgit() { git --git-dir="$G" "$@"; }

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
	"$UE_REPO/harness/deps.sh"
	locked_here=
	[ -n "${UE_LOCKED:-}" ] || locked_here=1
	lock_build
	"$UE_REPO/harness/assemble.sh"
	[ "$build_mode" = 0 ] || "$UE_REPO/harness/config.sh" release
fi

# The table: COMMIT -> final paths, partial paths
rows=$(series_rows) || exit 1
mapfile -t manifest < "$B/linux.manifest"
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

ident=$(git -C "$UE_REPO" var GIT_AUTHOR_IDENT 2>/dev/null | sed 's/ [0-9]* [-+][0-9]*$//') ||
	ident=$(git -C "$UE_REPO" log -1 --format='%an <%ae>')
export GIT_AUTHOR_NAME=${ident% <*} GIT_AUTHOR_EMAIL=${ident##*<}
GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL

if ! sgit rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	log "creating the pristine base repo build/series.git (once, ~1-2 min)"
	rm -rf "$G"
	git init -q --bare "$G"
	(cd "$PRISTINE" && GIT_INDEX_FILE=$B/series.index git --git-dir="$G" --work-tree=. add -A -f .)
	tree=$(GIT_INDEX_FILE=$B/series.index sgit write-tree)
	sgit tag base "$(sgit commit-tree -m "Linux 6.1 (Debian linux-source-6.1)" "$tree")"
fi

# stage_file FILE [CONTENT-FILE]: put FILE (from the tree, or CONTENT-FILE)
# into the index, or remove it when the tree has no such file
stage_file()
{
	local f=$1 src=${2:-$TREE/$1} mode=100644 blob
	if [ -f "$TREE/$f" ]; then
		[ -x "$TREE/$f" ] && mode=100755
		blob=$(sgit hash-object -w "$src")
		sgit update-index --add --cacheinfo "$mode,$blob,$f"
	else
		sgit update-index --force-remove "$f"
	fi
}

# partial FILE REGEX...: FILE's final content without every match of each
# REGEX (each must match)
partial()
{
	python3 - "$@" <<'PY'
import re, sys
f, pats = sys.argv[1], sys.argv[2:]
s = open(f).read()
for p in pats:
    s, n = re.subn(p, '', s, flags=re.M)
    if not n:
        sys.exit("-%s removes nothing from %s" % (p, f))
sys.stdout.write(s)
PY
}

# patched_upto FILE PATCH: FILE of pristine 6.1 with the patches of the
# table applied in order up to PATCH, in $B/series.step/FILE
patched_upto()
{
	local f=$1 upto=$2 kind p g d=$B/series.step
	rm -rf "$d" && mkdir -p "$d"
	while IFS=$'\t' read -r kind _ p _; do
		[ "$kind" = patch ] || continue
		patch_files "$UE_REPO/patches/$p" | grep -qxF "$f" || continue
		while IFS= read -r g; do
			[ -e "$d/$g" ] || [ ! -f "$PRISTINE/$g" ] ||
				{ mkdir -p "$d/$(dirname "$g")" && cp "$PRISTINE/$g" "$d/$g"; }
		done < <(patch_files "$UE_REPO/patches/$p")
		patch -s -p1 -d "$d" --fuzz=0 --batch -i "$UE_REPO/patches/$p" >/dev/null || return 1
		[ "$p" != "$upto" ] || return 0
	done <<< "$rows"
	return 1
}

export GIT_INDEX_FILE=$B/series.index
sgit read-tree base
head=$(sgit rev-parse base)
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
		read -r -a res <<< "$filters"
		if partial "$TREE/$item" "${res[@]}" > "$B/series.partial"; then
			stage_file "$item" "$B/series.partial"
		else
			errs+=("$c $item: a filter removes nothing")
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
rm -rf "$B/series.partial" "$B/series.step"
unset GIT_INDEX_FILE
sgit update-ref refs/heads/series "$head"

# The last commit holds exactly the assembled files
for f in "${manifest[@]}"; do
	want=absent
	[ -f "$TREE/$f" ] && want=$(sgit hash-object "$TREE/$f")
	got=$(sgit rev-parse -q --verify "series:$f" 2>/dev/null || echo absent)
	[ "$want" = "$got" ] || errs+=("$f: the last commit does not hold its assembled content")
done
if [ ${#errs[@]} -gt 0 ]; then
	result FAIL "the commits of patches/series end with the assembled tree" "${errs[@]}"
	exit 1
fi
result OK "the commits of patches/series end with the assembled tree"

rm -rf "$out"
sgit format-patch -q --cover-letter --thread=shallow -o "$out" base..series
cover=$(ls "$out"/0000-*.patch)
mapfile -t patches < <(ls "$out"/*.patch | grep -v '/0000-')
mapfile -t shas < <(sgit rev-list --reverse base..series)
result OK "exported ${#patches[@]} patches and a cover letter to ${out#"$UE_REPO"/}"

# git am on a pristine checkout (kept under build/, reset each time)
if [ ! -e "$am/.git" ]; then
	log "checking out pristine 6.1 in ${am#"$UE_REPO"/} for the git am check (once, ~30 s)"
	rm -rf "$am"
	sgit worktree prune
	sgit worktree add -q --detach "$am" base
fi
amok=0
if (
	cd "$am"
	git am --abort >/dev/null 2>&1 || true
	git checkout -q -f --detach base
	git clean -q -fdx
	git am --whitespace=warn "${patches[@]}"
) > "$B/series-am.log" 2>&1; then
	if [ "$(git -C "$am" rev-parse "HEAD^{tree}")" = "$(sgit rev-parse "series^{tree}")" ]; then
		amok=1
		result OK "git am applies the ${#patches[@]} patches to pristine 6.1 and gives the assembled tree"
	else
		result FAIL "git am applies the ${#patches[@]} patches to pristine 6.1 and gives the assembled tree" \
			"the tree after git am differs (${am#"$UE_REPO"/})"
	fi
else
	mapfile -t amlog < <(tail -n 15 "$B/series-am.log")
	result FAIL "git am applies the ${#patches[@]} patches to pristine 6.1 and gives the assembled tree" "${amlog[@]}"
fi
# what git am warns about, a maintainer sees too
mapfile -t ws < <(awk '/^Applying: / { p = substr($0, 11) }
	/: (space before tab in indent|trailing whitespace|new blank line at EOF|indent with spaces)\.$/ {
		sub(/^.*rebase-apply\/patch:[0-9]+: /, ""); n[p ": " $0]++ }
	END { for (k in n) print k " (" n[k] " lines)" }' "$B/series-am.log")
if [ ${#ws[@]} -eq 0 ]; then
	result OK "git am reports no whitespace errors"
else
	result FAIL "git am reports no whitespace errors" "${ws[@]:0:10}" "full log: build/series-am.log"
fi

# MAINTAINERS: the lines the series adds name nobody but its author (the
# repo's identity; in a clone with another git identity, an author of
# the repo's commits)
names=$(sgit diff base series -- MAINTAINERS | sed -n 's/^+\([MR]\):[[:space:]]*//p' | sort -u)
ours=$(printf '%s\n' "$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL>"; git -C "$UE_REPO" log --format='%an <%ae>' | sort -u)
others=$(grep -vxF -f <(printf '%s\n' "$ours") <<< "$names" || true)
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
	(cd "$am" && ./scripts/get_maintainer.pl --nogit --nogit-fallback "${patches[@]}") \
		> "$B/series-maintainers.txt" 2>&1 &
	gm_pid=$!
fi

# checkpatch --strict of every patch (the cover letter is no patch), $JOBS
# at a time; one result each
rm -rf "$B/series-checkpatch"
mkdir -p "$B/series-checkpatch"
# (--ignore UNKNOWN_COMMIT_ID: without the kernel's git history no commit
# id of a Fixes: tag can be looked up here)
printf '%s\0' "${patches[@]}" | (cd "$PRISTINE" && xargs -0 -P "$JOBS" -I{} sh -c \
	'./scripts/checkpatch.pl --strict --no-color --ignore UNKNOWN_COMMIT_ID "$1" > "$2/$(basename "$1" .patch).txt" 2>&1' \
	sh {} "$B/series-checkpatch") || true
declare -A cpres=()
for ((i = 0; i < ${#patches[@]}; i++)); do
	p=${patches[i]}
	name=$(basename "$p" .patch)
	what="patch $((i + 1))/${#patches[@]} ($(head -n1 "$msgs/${commits[i]}.txt"))"
	cplog=$B/series-checkpatch/$name.txt
	read -r e w c <<< "$(sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p' "$cplog")"
	cpres[$name]="${e:-?} err, ${w:-?} warn, ${c:-?} chk"
	if [ "${e:-1}" = 0 ] && [ "${w:-1}" = 0 ]; then
		result OK "checkpatch --strict $what: ${c} checks"
	else
		mapfile -t cpl < <(grep -E '^(ERROR|WARNING):' "$cplog" | head -20)
		result FAIL "checkpatch --strict $what: ${e:-?} errors, ${w:-?} warnings, ${c:-?} checks" \
			"${cpl[@]}" "full report: ${cplog#"$UE_REPO"/}"
	fi
done

if [ $amok = 1 ]; then
	wait $gm_pid || die "get_maintainer.pl failed: $(cat "$B/series-maintainers.txt")"
	python3 - "$cover" "$msgs/00-cover.txt" "$B/series-maintainers.txt" <<'PY'
import sys
path, blurb = sys.argv[1], open(sys.argv[2]).read().split('\n', 1)
roles = ''.join('  ' + l for l in open(sys.argv[3]))
body = (blurb[1].strip() + '\n\nscripts/get_maintainer.pl --nogit --nogit-fallback '
        'on the series:\n\n' + roles.rstrip())
s = open(path).read()
s = s.replace('*** SUBJECT HERE ***', blurb[0]).replace('*** BLURB HERE ***', body)
open(path, 'w').write(s)
PY
fi

# The patch list
echo "Series in ${out#"$UE_REPO"/}: $(head -n1 "$msgs/00-cover.txt")"
for ((i = 0; i < ${#commits[@]}; i++)); do
	printf '  %04d %s\n' $((i + 1)) "$(head -n1 "$msgs/${commits[i]}.txt")"
done
[ -n "$tap" ] && exit $failed

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
	if sgit show "$1:kernel/trace/Kconfig" | grep -q 'depends on BROKEN || COMPILE_TEST'; then
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
printf '%-64s %-26s %s\n' "Patch (build/series/)" "checkpatch --strict" "build" > "$table"
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
				if nice -n 10 make -C "$bwt" O="$obj" CC="$KCC" -j"$JOBS" bzImage 2>&1 |
				   kbuild_progress "$slog" "patch $((i + 1))/${#patches[@]}" "$total"; then
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
	printf '%-64s %-26s %s\n' "$name" "${cpres[$name]}" "$bres" | tee -a "$table"
done

if [ "$KCC" != gcc ]; then
	hits=$(( $(ccstat direct_cache_hit) + $(ccstat preprocessed_cache_hit) - hits0 ))
	log "ccache ($CCACHE_DIR): $hits hits, $(( $(ccstat cache_miss) - miss0 )) misses"
fi
echo "build: make bzImage in ${obj#"$UE_REPO"/} at each commit; release = the release config (build/kconfig-release),"
echo "  +KUNIT so that the KUnit patch compiles, +COMPILE_TEST while kernel/trace/Kconfig still has"
echo "  USER_EVENTS depend on BROKEN || COMPILE_TEST: every step compiles trace_events_user.c"
if [ -n "$broken" ]; then
	echo "BUILD BROKEN by $broken: the kernel does not build (or warns) after this patch"
	failed=1
fi
exit $failed
