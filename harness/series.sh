#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make series": export the assembled work as a git format-patch series
# against pristine 6.1, check that it applies with git am to a pristine
# checkout, and run checkpatch --strict on every patch.
#
# build/series.git holds pristine 6.1 as commit "base" (made once); the
# commits are built from the assembled files without a checkout.  The
# messages come from harness/series/NN-*.txt (first line: subject).
# Output: build/series/*.patch.  Exit 1 if git am fails or checkpatch
# reports errors.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lock_build

"$UE_REPO/harness/assemble.sh"

msgs=$UE_REPO/harness/series
export GIT_DIR=$B/series.git
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

# group GROUP-FILE-PREFIX for a path
group_of()
{
	case $1 in
	MAINTAINERS) echo 07 ;;
	kernel/trace/trace.c) echo 001 ;;
	Documentation/*) echo 04 ;;
	samples/*) echo 05 ;;
	tools/*) echo 06 ;;
	kernel/trace/Kconfig) echo 03 ;;
	kernel/fork.c|kernel/exit.c|fs/exec.c|include/linux/mm_types.h|include/linux/sched.h|include/linux/sched/*) echo 02 ;;
	*) echo 01 ;;
	esac
}

export GIT_INDEX_FILE=$B/series.index
git read-tree base
head=$(git rev-parse base)
for g in 001 01 02 03 04 05 06 07; do
	n=0
	while IFS= read -r f; do
		[ "$(group_of "$f")" = $g ] || continue
		if [ -f "$TREE/$f" ]; then
			mode=100644
			[ -x "$TREE/$f" ] && mode=100755
			blob=$(git hash-object -w "$TREE/$f")
			git update-index --add --cacheinfo "$mode,$blob,$f"
		else
			git update-index --force-remove "$f"
		fi
		n=$((n + 1))
	done < "$B/linux.manifest"
	tree=$(git write-tree)
	[ "$tree" != "$(git rev-parse "$head^{tree}")" ] || continue
	msgfile=$(ls "$msgs/$g"-*.txt)
	msg=$(cat "$msgfile"; printf '\nSigned-off-by: %s <%s>\n' "$GIT_AUTHOR_NAME" "$GIT_AUTHOR_EMAIL")
	head=$(git commit-tree -p "$head" -m "$msg" "$tree")
done
git update-ref refs/heads/series "$head"
unset GIT_INDEX_FILE

out=$B/series
rm -rf "$out"
git format-patch -q --cover-letter -o "$out" base..series
cover=$(ls "$out"/0000-*.patch)
subject=$(head -n1 "$msgs/00-cover.txt")
python3 - "$cover" "$msgs/00-cover.txt" <<'PY'
import sys
path, blurb = sys.argv[1], open(sys.argv[2]).read().split('\n', 1)
s = open(path).read()
s = s.replace('*** SUBJECT HERE ***', blurb[0]).replace('*** BLURB HERE ***', blurb[1].strip())
open(path, 'w').write(s)
PY
log "series: $(ls "$out" | wc -l) files in ${out#"$UE_REPO"/} ($subject)"

# git am on a pristine checkout (kept under build/, reset each time)
wt=$B/series-am
if [ ! -d "$wt" ]; then
	log "checking out pristine 6.1 for the git am check (once)"
	git worktree add -q --detach "$wt" base
fi
amok=1
patches=$(ls "$out"/*.patch | grep -v '/0000-')
(
	cd "$wt"
	git am --abort >/dev/null 2>&1 || true
	git checkout -q -f --detach base
	git clean -q -fdx
	# shellcheck disable=SC2086 # one patch per word
	git am -q $patches
) > "$B/series-am.log" 2>&1 || { cat "$B/series-am.log" >&2; amok=0; }
if [ "$(git -C "$wt" rev-parse HEAD^{tree})" = "$(git rev-parse series^{tree})" ]; then
	log "git am: the series applies to pristine 6.1 and gives the assembled tree"
else
	log "git am: FAILED (see $wt)"
	amok=0
fi

errors=0
echo "Patch series (build/series/):"
for p in "$out"/*.patch; do
	name=$(basename "$p")
	case $name in 0000-*) echo "  $name"; continue ;; esac
	sum=$(cd "$TREE" && ./scripts/checkpatch.pl --strict "$p" 2>&1 | grep -E '^total:' || true)
	[ -n "$sum" ] || sum="total: checkpatch failed"
	printf '  %-60s %s\n' "$name" "$sum"
	e=$(sed -n 's/^total: \([0-9]*\) errors.*/\1/p' <<< "$sum")
	errors=$((errors + ${e:-1}))
done
echo "checkpatch --strict: $errors error(s) in total; details: scripts/checkpatch.pl --strict build/series/NNNN-*.patch"
[ $amok = 1 ] && [ $errors -eq 0 ]
