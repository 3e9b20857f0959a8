#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make refresh-patches": take the edits made in build/linux back into the
# repo, so that the next assembly keeps them.
#
#   - a file that a patch of patches/ changes: the patch is written again,
#     "diff -u" of the pristine file and the edited one (a/ b/ labels); a
#     file that several patches change (in the order of patches/series)
#     gives its edits to the last of them, written as the diff of the file
#     after the earlier ones to the edited file;
#   - a file of the overlay: copied back to the repo.
#
# Only files that differ from what the last assembly wrote there
# (build/linux.sums) are taken, and only when their source in the repo did
# not change since that assembly (the edit would overwrite it: merge by
# hand then).
#
# NEW=PATH[,PATH]: start a patch for a 6.1 file the series does not change
# yet (edit build/linux/PATH first): writes patches/<PATH, "/" -> "-">.patch
# and prints the patches/series row it needs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
lock_build

[ -f "$B/linux.sums" ] || die "no build/linux.sums: assemble first (make assemble), then edit build/linux"
declare -A wrote=()
while read -r sum f; do wrote[$f]=$sum; done < "$B/linux.sums"
sha() { sha1sum < "$1" | cut -c1-40; }

# mkpatch OUT PATH...: the -p1 patch of PATHs, pristine -> build/linux
mkpatch()
{
	local out=$1 f
	shift
	for f in "$@"; do
		diff -u --label "a/$f" --label "b/$f" "$PRISTINE/$f" "$TREE/$f" || [ $? = 1 ]
	done > "$out.tmp"
	[ -s "$out.tmp" ] || { rm -f "$out.tmp"; die "build/linux/$* equals pristine 6.1: nothing to patch"; }
	mv "$out.tmp" "$out"
}

edited=()
for f in "${!wrote[@]}"; do
	[ -f "$TREE/$f" ] && [ "$(sha "$TREE/$f")" != "${wrote[$f]}" ] && edited+=("$f")
done

rows=$(series_rows) || exit 1
n=0 bad=0
tmp=$B/tmp/refresh
# The last patch of each file: a file that several patches change (one
# commit each) takes its edits into the last of them
declare -A last=()
while IFS=$'\t' read -r kind _ p _; do
	[ "$kind" = patch ] && [ -f "$UE_REPO/patches/$p" ] || continue
	while IFS= read -r f; do last[$f]=$p; done < <(patch_files "$UE_REPO/patches/$p")
done <<< "$rows"
# $tmp/acc: pristine 6.1 with the patches applied so far, in table order;
# $tmp/old: a patch's files before it, $tmp/new: what it must give
rm -rf "$tmp" && mkdir -p "$tmp/acc"
while IFS=$'\t' read -r kind _ p _; do
	[ "$kind" = patch ] && [ -f "$UE_REPO/patches/$p" ] || continue
	mapfile -t files < <(patch_files "$UE_REPO/patches/$p")
	rm -rf "$tmp/old" "$tmp/new" && mkdir -p "$tmp/old" "$tmp/new"
	for f in "${files[@]}"; do
		mkdir -p "$tmp/acc/$(dirname "$f")" "$tmp/old/$(dirname "$f")" "$tmp/new/$(dirname "$f")"
		[ -f "$tmp/acc/$f" ] || [ ! -f "$PRISTINE/$f" ] || cp "$PRISTINE/$f" "$tmp/acc/$f"
		[ ! -f "$tmp/acc/$f" ] || cp "$tmp/acc/$f" "$tmp/old/$f"
	done
	if ! patch -s -p1 -d "$tmp/acc" --fuzz=0 --batch -i "$UE_REPO/patches/$p" >/dev/null 2>&1; then
		die "patches/$p does not apply on the patches before it: assemble first"
	fi
	hit= ok=1
	for f in "${files[@]}"; do
		if [ "${last[$f]}" = "$p" ]; then
			# the patch as it is now must still give what the assembly wrote
			[ "$(sha "$tmp/acc/$f")" = "${wrote[$f]:-}" ] || ok=
			[[ " ${edited[*]} " == *" $f "* ]] && hit=1
			cp "$TREE/$f" "$tmp/new/$f"
		else
			cp "$tmp/acc/$f" "$tmp/new/$f"
		fi
	done
	[ -n "$hit" ] || continue
	if [ -z "$ok" ]; then
		log "patches/$p changed since the assembly: not refreshed (merge the edits of build/linux by hand)"
		bad=1
		continue
	fi
	for f in "${files[@]}"; do
		diff -u --label "a/$f" --label "b/$f" "$tmp/old/$f" "$tmp/new/$f" || [ $? = 1 ]
	done > "$tmp/patch"
	[ -s "$tmp/patch" ] || die "patches/$p would be empty: delete it and its row instead"
	mv "$tmp/patch" "$UE_REPO/patches/$p"
	log "refreshed patches/$p ($(grep -c '^@@' "$UE_REPO/patches/$p") hunk(s))"
	n=$((n + 1))
done <<< "$rows"
rm -rf "$tmp"

# Overlay files
for f in "${edited[@]}"; do
	[ -f "$UE_REPO/$f" ] || continue
	if [ "$(sha "$UE_REPO/$f")" != "${wrote[$f]}" ]; then
		log "$f changed in the repo since the assembly: build/linux/$f not copied back (merge by hand)"
		bad=1
		continue
	fi
	cp "$TREE/$f" "$UE_REPO/$f"
	log "copied build/linux/$f back to $f"
	n=$((n + 1))
done

# New patches
IFS=, read -r -a new <<< "${NEW:-}"
for f in "${new[@]}"; do
	[ -f "$PRISTINE/$f" ] || die "NEW=$f: no such file in pristine 6.1"
	[ -z "${wrote[$f]:-}" ] || die "NEW=$f: the series changes it already"
	p=${f//\//-}.patch
	[ ! -e "$UE_REPO/patches/$p" ] || die "patches/$p exists already"
	mkpatch "$UE_REPO/patches/$p" "$f"
	log "wrote patches/$p; add its row to patches/series, e.g.:  0031-reg  $p"
	n=$((n + 1))
done

log "refresh-patches: $n file(s) written; run \"git diff\" to review"
[ $bad = 0 ]
