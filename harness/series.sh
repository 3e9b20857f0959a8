#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make series": export the assembled work as a mail-ready git format-patch
# series against pristine 6.1 (cover letter with get_maintainer.pl output),
# check that it applies with git am to a pristine checkout and gives the
# assembled tree, run checkpatch --strict on every patch, and build the
# kernel after each patch.
#
# build/series.git holds pristine 6.1 as commit "base" (made once); the
# commits are built from the assembled files without a checkout.  The
# messages come from harness/series/NN-*.txt (first line: subject;
# 00-cover.txt is the cover letter).  Output: build/series/*.patch.
#
# The per-patch builds use the release config (build/kconfig-release, made
# by config.sh) plus CONFIG_KUNIT so that the KUnit patch is compiled too;
# while kernel/trace/Kconfig still makes USER_EVENTS depend on
# BROKEN || COMPILE_TEST, CONFIG_COMPILE_TEST=y keeps USER_EVENTS on, so
# every step compiles the user_events code.  They run in the build/series-am
# worktree (git checkout of each commit, incremental) with O=build/obj-series.
# A step whose tree and config were already built OK is not rebuilt.
#
#   SERIES_BUILD=0       skip the per-patch builds
#   SERIES_BUILD=force   rebuild every step, ignoring earlier results
#
# With ccache (deps.sh series) the objects go through build/ccache.
#
# Exit 1 if git am fails, checkpatch reports an error or a warning, or a
# step does not build.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

msgs=$UE_REPO/harness/series
out=$B/series
wt=$B/series-am
obj=$B/obj-series
kc=$B/kconfig-series
build_mode=${SERIES_BUILD:-1}
export GIT_DIR=$B/series.git

# Group of a path of the assembled tree: the patch that brings its final
# content (harness/series/GROUP-*.txt)
group_of()
{
	case $1 in
	kernel/trace/trace.[ch]|kernel/trace/trace_events.c|kernel/trace/trace_events_trigger.c|kernel/trace/trace_events_hist.c|kernel/trace/trace_events_inject.c) echo 001 ;;
	kernel/fork.c|kernel/exit.c|fs/exec.c|include/linux/sched.h) echo 02 ;;
	kernel/trace/Kconfig|kernel/trace/trace_events_user*.c) echo 035 ;;
	Documentation/*) echo 04 ;;
	samples/*) echo 05 ;;
	tools/*|MAINTAINERS) echo 06 ;;
	*) echo 01 ;;
	esac
}
GROUPS_ORDER="001 01 02 03 035 04 05 06"

# Earlier, partial versions of a file: "GROUP FILE" pairs; the content is
# filtered by partial_filter, and group_of() brings the final one later.
PARTIALS="01:MAINTAINERS 035:MAINTAINERS 01:kernel/trace/trace_events_user.c 03:kernel/trace/Kconfig"

# partial_filter GROUP FILE < final > partial
partial_filter()
{
	python3 -c '
import re, sys
g, f = sys.argv[1], sys.argv[2]
s = sys.stdin.read()
orig = s
if f == "MAINTAINERS":
    # the selftests patch lists its directory, the KUnit patch its file
    s = s.replace("F:\ttools/testing/selftests/user_events/\n", "")
    if g == "01":
        s = s.replace("F:\tkernel/trace/trace_events_user_kunit.c\n", "")
elif f == "kernel/trace/trace_events_user.c":
    # the KUnit patch adds the include of its tests
    s = re.sub(r"\n#ifdef CONFIG_USER_EVENTS_KUNIT_TEST\n#include \"trace_events_user_kunit.c\"\n#endif\n", "", s)
elif f == "kernel/trace/Kconfig":
    s = re.sub(r"config USER_EVENTS_KUNIT_TEST\n(?:(?:\t.*)?\n)*?(?=config |menuconfig |endmenu|if |endif)", "", s)
if s == orig:
    sys.exit("partial_filter: nothing removed from %s for group %s" % (f, g))
sys.stdout.write(s)
' "$1" "$2"
}

# The series lock (build/series*, obj-series) for the whole run; the global
# build lock only while the assembled tree and the release config are used.
exec 8> "$B/.series-lock"
if ! flock -n 8; then
	log "waiting for another make series"
	flock 8
fi

# ---------------------------------------------------------------------------
# 1. Under the global build lock: assemble, commit, export, release config
# ---------------------------------------------------------------------------
"$UE_REPO/harness/deps.sh" series
lock_build
"$UE_REPO/harness/assemble.sh"
"$UE_REPO/harness/config.sh" release

ident=$(git -C "$UE_REPO" var GIT_AUTHOR_IDENT | sed 's/ [0-9]* [-+][0-9]*$//')
export GIT_AUTHOR_NAME=${ident% <*} GIT_AUTHOR_EMAIL=${ident##*<}
GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL%>}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL

if ! git rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	log "creating the pristine base repo (once, ~1 min)"
	rm -rf "$GIT_DIR"
	git init -q --bare "$GIT_DIR"
	git config core.bare false
	(cd "$PRISTINE" && GIT_INDEX_FILE=$B/series.index git --work-tree=. add -A -f .)
	tree=$(GIT_INDEX_FILE=$B/series.index git write-tree)
	base=$(git commit-tree -m "Linux 6.1 (Debian linux-source-6.1)" "$tree")
	git tag base "$base"
fi

# stage_file FILE [CONTENT-FILE]: put FILE (from the tree, or CONTENT-FILE)
# into the index, or remove it when the tree has no such file
stage_file()
{
	local f=$1 src=${2:-$TREE/$1} mode=100644 blob
	if [ -f "$TREE/$f" ]; then
		[ -x "$TREE/$f" ] && mode=100755
		blob=$(git hash-object -w "$src")
		git update-index --add --cacheinfo "$mode,$blob,$f"
	else
		git update-index --force-remove "$f"
	fi
}

export GIT_INDEX_FILE=$B/series.index
git read-tree base
head=$(git rev-parse base)
for g in $GROUPS_ORDER; do
	while IFS= read -r f; do
		[ "$(group_of "$f")" = "$g" ] && stage_file "$f"
	done < "$B/linux.manifest"
	for p in $PARTIALS; do
		[ "${p%%:*}" = "$g" ] || continue
		f=${p#*:}
		partial_filter "$g" "$f" < "$TREE/$f" > "$B/series.partial"
		stage_file "$f" "$B/series.partial"
	done
	tree=$(git write-tree)
	[ "$tree" != "$(git rev-parse "$head^{tree}")" ] || continue
	msgfile=$(ls "$msgs/$g"-*.txt)
	msg=$(cat "$msgfile"; printf '\nSigned-off-by: %s <%s>\n' "$GIT_AUTHOR_NAME" "$GIT_AUTHOR_EMAIL")
	head=$(git commit-tree -p "$head" -m "$msg" "$tree")
done
rm -f "$B/series.partial"
git update-ref refs/heads/series "$head"
unset GIT_INDEX_FILE

# The last commit must hold exactly the assembled files (partial versions
# staged earlier must have been replaced by their final content)
bad=0
while IFS= read -r f; do
	want=absent
	[ -f "$TREE/$f" ] && want=$(git hash-object "$TREE/$f")
	got=$(git rev-parse -q --verify "series:$f" 2>/dev/null || echo absent)
	[ "$want" = "$got" ] || { log "series: $f differs from the assembled tree"; bad=1; }
done < "$B/linux.manifest"
[ $bad -eq 0 ] || die "the series does not end with the assembled tree (see group_of/PARTIALS)"

rm -rf "$out"
git format-patch -q --cover-letter --thread=shallow -o "$out" base..series
cover=$(ls "$out"/0000-*.patch)
patches=$(ls "$out"/*.patch | grep -v '/0000-')

mkdir -p "$B/series-cfg"
cp "$B/kconfig-release/.config" "$B/series-cfg/release.config"

# Release the global lock: the rest only uses build/series*, obj-series
flock -u 9
exec 9>&-

# ---------------------------------------------------------------------------
# 2. Under the series lock only: git am, get_maintainer, checkpatch, builds
# ---------------------------------------------------------------------------
unset GIT_DIR

# git am on a pristine checkout (kept under build/, reset each time)
if [ ! -e "$wt/.git" ]; then
	log "checking out pristine 6.1 for the git am check (once)"
	rm -rf "$wt"
	git -C "$B/series.git" worktree prune
	git -C "$B/series.git" worktree add -q --detach "$wt" base
fi
amok=1
(
	cd "$wt"
	git am --abort >/dev/null 2>&1 || true
	git checkout -q -f --detach base
	git clean -q -fdx
	# shellcheck disable=SC2086 # one patch per word
	git am -q $patches
) > "$B/series-am.log" 2>&1 || { cat "$B/series-am.log" >&2; amok=0; }
if [ $amok = 1 ] && [ "$(git -C "$wt" rev-parse "HEAD^{tree}")" = "$(git -C "$B/series.git" rev-parse "series^{tree}")" ]; then
	log "git am: the series applies to pristine 6.1 and gives the assembled tree"
else
	log "git am: FAILED (see ${wt#"$UE_REPO"/} and build/series-am.log)"
	amok=0
fi

# get_maintainer.pl, git-free, on the series as applied: into the cover letter
maint=$(cd "$wt" && ./scripts/get_maintainer.pl --nogit --nogit-fallback --norolestats $patches 2>&1) ||
	die "get_maintainer.pl failed: $maint"
grep -q 'linux-trace-kernel@vger.kernel.org' <<< "$maint" ||
	die "get_maintainer.pl did not find the USER EVENTS entry"
(cd "$wt" && ./scripts/get_maintainer.pl --nogit --nogit-fallback $patches) > "$B/series-maintainers.txt" 2>&1
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
log "series: $(ls "$out" | wc -l) files in ${out#"$UE_REPO"/} ($(head -n1 "$msgs/00-cover.txt"))"
log "To/Cc: $(tr '\n' ',' <<< "$maint" | sed 's/,$//; s/,/, /g')"

# checkpatch --strict of one patch: "E W C" counts (the cover letter is no patch)
checkpatch_counts()
{
	local log=$B/series-checkpatch/$(basename "$1" .patch).txt
	(cd "$wt" && ./scripts/checkpatch.pl --strict "$1" 2>&1 || true) > "$log"
	sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p' "$log"
}
rm -rf "$B/series-checkpatch"
mkdir -p "$B/series-checkpatch"

# build_config COMMIT: write the step's .config into $kc and describe it
build_config()
{
	local frag=$B/series-cfg/frag.config what=release+KUNIT
	printf 'CONFIG_KUNIT=y\nCONFIG_USER_EVENTS_KUNIT_TEST=y\n' > "$frag"
	if git -C "$wt" show "$1:kernel/trace/Kconfig" |
	   grep -q 'depends on BROKEN || COMPILE_TEST # API needs'; then
		echo 'CONFIG_COMPILE_TEST=y' >> "$frag"
		what=release+KUNIT+COMPILE_TEST
	fi
	mkdir -p "$kc"
	"$wt/scripts/kconfig/merge_config.sh" -m -O "$kc" "$B/series-cfg/release.config" "$frag" \
		> "$kc/merge.log" 2>&1 || { cat "$kc/merge.log" >&2; return 1; }
	make -s -C "$wt" O="$kc" CC="$cc" olddefconfig > "$kc/make.log" 2>&1 || { cat "$kc/make.log" >&2; return 1; }
	grep -qx 'CONFIG_USER_EVENTS=y' "$kc/.config" || { log "CONFIG_USER_EVENTS did not land"; return 1; }
	grep -qx 'CONFIG_USER_EVENTS_KUNIT_TEST=y' "$kc/.config" && what="$what, kunit on"
	echo "$what"
}

# git am and each checkout rewrite the files the series touches, so make
# sees include/linux/mm_types.h as new at every run: ccache turns those
# rebuilds of unchanged sources into cache hits.
cc=gcc
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	export CCACHE_DIR=$B/ccache CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-3G}
	ccache -z >/dev/null
fi

errors=0 warnings=0 broken=
results=()
[ "$build_mode" = 0 ] || log "building the release kernel after each patch (O=${obj#"$UE_REPO"/}; SERIES_BUILD=0 skips)"
mkdir -p "$obj"
touch "$obj/.ue-series-ok"
[ "$build_mode" != force ] || : > "$obj/.ue-series-ok"
printf '%-64s %-26s %s\n' "Patch (build/series/)" "checkpatch --strict" "build" > "$B/series-table.txt"
mapfile -t commits < <(git -C "$wt" rev-list --reverse base..HEAD)
n=0
for p in $patches; do
	n=$((n + 1))
	name=$(basename "$p")
	read -r e w c <<< "$(checkpatch_counts "$p")"
	e=${e:-1} w=${w:-0} c=${c:-0}
	errors=$((errors + e)) warnings=$((warnings + w))
	cp="$e err, $w warn, $c chk"
	bres="skipped (SERIES_BUILD=0)"
	if [ "$build_mode" != 0 ] && [ $amok = 1 ] && [ -z "$broken" ]; then
		commit=${commits[$((n - 1))]}
		git -C "$wt" checkout -q --detach "$commit"
		if ! what=$(build_config "$commit"); then
			bres="FAILED (config)"
			broken=$name
		else
			key="$(git -C "$wt" rev-parse "HEAD^{tree}") $(sha1sum < "$kc/.config" | cut -c1-40)"
			if grep -qxF "$key" "$obj/.ue-series-ok"; then
				bres="OK (same tree and config built before; $what)"
			else
				cmp -s "$kc/.config" "$obj/.config" || cp "$kc/.config" "$obj/.config"
				start=$SECONDS
				if make -s -C "$wt" O="$obj" CC="$cc" -j"$JOBS" bzImage > "$obj/step-$n.log" 2>&1; then
					bres="OK $((SECONDS - start)) s ($what)"
					echo "$key" >> "$obj/.ue-series-ok"
				else
					bres="FAILED after $((SECONDS - start)) s ($what; log: ${obj#"$UE_REPO"/}/step-$n.log)"
					broken=$name
					grep -E 'error' -A3 "$obj/step-$n.log" | head -30 >&2
				fi
				# compiler warnings in the files this patch touches
				files=$(git -C "$wt" diff --name-only "$commit~1" "$commit")
				nw=$(grep -E 'warning:' "$obj/step-$n.log" | grep -cF "$files" || true)
				[ "$nw" = 0 ] || bres="$bres, $nw compiler warning(s) in its files"
			fi
		fi
	elif [ -n "$broken" ]; then
		bres="not built (an earlier step failed)"
	fi
	results+=("$name")
	printf '%-64s %-26s %s\n' "$name" "$cp" "$bres" | tee -a "$B/series-table.txt"
done
[ "$build_mode" = 0 ] || git -C "$wt" checkout -q --detach "$(git -C "$B/series.git" rev-parse series)"

if [ "$build_mode" != 0 ] && [ "$cc" != gcc ]; then
	log "ccache: $(ccache -s | grep -E '^ *(Hits|Misses):' | tr -s ' ' | tr '\n' ' ')"
fi
if [ "$build_mode" != 0 ]; then
	echo "build: make bzImage in ${obj#"$UE_REPO"/} at each commit; release = the release config (build/kconfig-release),"
	echo "  +KUNIT so that the KUnit patch compiles, +COMPILE_TEST while kernel/trace/Kconfig still has"
	echo "  USER_EVENTS depend on BROKEN || COMPILE_TEST: every step compiles trace_events_user.c"
fi
echo "checkpatch --strict: $errors error(s), $warnings warning(s) in total; details: build/series-checkpatch/"
[ -z "$broken" ] || echo "BUILD BROKEN by $broken: the kernel does not build after this patch"
[ $amok = 1 ] && [ $errors -eq 0 ] && [ $warnings -eq 0 ] && [ -z "$broken" ]
