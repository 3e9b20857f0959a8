#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Assemble the working tree build/linux: pristine 6.1 + overlay + patches.
#
# The result is first built in a staging area holding only the files the
# series touches; then only files whose content changed are copied into
# build/linux, so unchanged files keep their mtimes and the O= kernel
# builds stay warm.  build/linux.manifest lists the paths the assembly
# owns; a path dropped from the series is restored from pristine.
# patches/series gives the order of the patches; build/linux.sums records
# what was written, so that an edit made in build/linux is never
# overwritten (make refresh-patches takes it back into the repo).
#
# Development knobs:
#   UE_EXTRA_OVERLAY=DIR       copy DIR (mirroring tree paths) after the overlay
#   UE_ALLOW_MISSING_PATCHES=1 warn instead of failing on a missing patch file
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# the overlay, and the old 6.1 directories replaced wholesale (lib.sh)
OVERLAY_DIRS=("${UE_OVERLAY_DIRS[@]}")
OLD_DIRS=("${UE_OLD_DIRS[@]}")

"$UE_REPO/harness/deps.sh"

if [ ! -d "$PRISTINE" ]; then
	log "extracting $SRC_TARBALL"
	rm -rf "$B/pristine.tmp"
	mkdir -p "$B/pristine.tmp"
	tar -xJf "$SRC_TARBALL" -C "$B/pristine.tmp"
	mkdir -p "$(dirname "$PRISTINE")"
	mv "$B/pristine.tmp"/linux-source-6.1 "$PRISTINE"
	rmdir "$B/pristine.tmp"
fi
if [ ! -d "$TREE" ]; then
	log "copying pristine tree to $TREE"
	rm -rf "$TREE.tmp" && mkdir -p "$TREE.tmp"
	# the contents: a symlinked pristine tree must not become build/linux
	cp -a "$PRISTINE/." "$TREE.tmp/"
	mv "$TREE.tmp" "$TREE"
fi

STAGE=$B/stage
rm -rf "$STAGE"
mkdir -p "$STAGE"

# 1. the old files that go away
(cd "$PRISTINE" && find "${OLD_DIRS[@]}" -type f 2>/dev/null) | sort > "$B/stage.deleted"

# 2. the overlay: every tracked or untracked, non-ignored file
(cd "$UE_REPO" && git ls-files -co --exclude-standard -- "${OVERLAY_DIRS[@]}") > "$B/stage.overlay"
while IFS= read -r f; do
	[ -f "$UE_REPO/$f" ] || continue
	mkdir -p "$STAGE/$(dirname "$f")"
	cp -p "$UE_REPO/$f" "$STAGE/$f"
done < "$B/stage.overlay"
if [ -n "${UE_EXTRA_OVERLAY:-}" ]; then
	log "extra overlay: $UE_EXTRA_OVERLAY"
	cp -a "$UE_EXTRA_OVERLAY/." "$STAGE/"
fi

# 3. the patches, in the order of patches/series
table=$(series_rows) || exit 1
mapfile -t rows <<< "$table"
for r in "${rows[@]}"; do
	IFS=$'\t' read -r kind _ p _ <<< "$r"
	[ "$kind" = patch ] || continue
	pf=$UE_REPO/patches/$p
	if [ ! -f "$pf" ]; then
		[ "${UE_ALLOW_MISSING_PATCHES:-0}" = 1 ] || die "patches/$p listed in patches/series but missing"
		log "WARNING: skipping missing patches/$p"
		continue
	fi
	patch_files "$pf" | while IFS= read -r f; do
		if [ ! -e "$STAGE/$f" ] && [ -f "$PRISTINE/$f" ] &&
		   ! grep -qxF "$f" "$B/stage.deleted"; then
			mkdir -p "$STAGE/$(dirname "$f")"
			cp -p "$PRISTINE/$f" "$STAGE/$f"
		fi
	done
	if ! out=$(patch -p1 -d "$STAGE" --fuzz=0 --no-backup-if-mismatch --batch -i "$pf" 2>&1); then
		printf '%s\n' "$out" >&2
		for r in $(find "$STAGE" -name '*.rej'); do
			echo "---- rejected hunk(s): ${r#"$STAGE"/}" >&2
			cat "$r" >&2
		done
		die "patches/$p does not apply"
	fi
	case "$out" in *fuzz*|*offset*) log "note: patches/$p: $(printf '%s' "$out" | grep -E 'fuzz|offset' | head -3)";; esac
done

# What the table does not place is not part of the series: say so early
# ("make series" and "make test" fail on it)
for pf in "$UE_REPO"/patches/*.patch; do
	[ -e "$pf" ] || continue
	printf '%s\n' "${rows[@]}" | cut -f3 | grep -qxF "${pf##*/}" ||
		log "WARNING: patches/${pf##*/} is not in patches/series: not applied"
done
while IFS= read -r f; do
	[ -f "$UE_REPO/$f" ] || continue
	placed=
	for r in "${rows[@]}"; do
		IFS=$'\t' read -r kind _ item _ <<< "$r"
		# shellcheck disable=SC2053 # ITEM is a glob
		[ "$kind" = path ] && [[ $f == $item ]] && { placed=1; break; }
	done
	[ -n "$placed" ] || log "WARNING: $f is in no row of patches/series"
done < "$B/stage.overlay"

# 4. sync the staging area into the tree, content-wise
(cd "$STAGE" && find . -type f | sed 's|^\./||' | sort) > "$B/stage.files"
sort -u "$B/stage.files" "$B/stage.deleted" > "$B/linux.manifest.new"

# A file of the tree that no longer has the content the last assembly
# wrote was edited in build/linux: never overwrite such an edit
declare -A wrote=()
if [ -f "$B/linux.sums" ]; then
	while read -r sum f; do wrote[$f]=$sum; done < "$B/linux.sums"
fi
edited=()
while IFS= read -r f; do
	[ -f "$TREE/$f" ] && [ -n "${wrote[$f]:-}" ] || continue
	cmp -s "$STAGE/$f" "$TREE/$f" && continue
	[ "$(sha1sum < "$TREE/$f" | cut -c1-40)" = "${wrote[$f]}" ] || edited+=("$f")
done < "$B/stage.files"
if [ ${#edited[@]} -gt 0 ]; then
	printf '  build/linux/%s\n' "${edited[@]}" >&2
	die "these files were edited in build/linux since the last assembly: \"make refresh-patches\" turns the edits into patches/ and overlay changes; to drop them, delete the files"
fi

changed=0
while IFS= read -r f; do
	if ! cmp -s "$STAGE/$f" "$TREE/$f"; then
		mkdir -p "$TREE/$(dirname "$f")"
		cp "$STAGE/$f" "$TREE/$f.ue-tmp" && mv "$TREE/$f.ue-tmp" "$TREE/$f"
		log "updated $f"
		changed=$((changed + 1))
	fi
	chmod --reference="$STAGE/$f" "$TREE/$f"
done < "$B/stage.files"
(cd "$TREE" && xargs -r -d '\n' sha1sum --) < "$B/stage.files" | sed 's/^\([0-9a-f]*\)  /\1 /' > "$B/linux.sums"

# old files: deleted unless the overlay provides them
comm -23 "$B/stage.deleted" "$B/stage.files" | while IFS= read -r f; do
	if [ -e "$TREE/$f" ]; then rm -f "$TREE/$f"; log "removed $f"; fi
done

# paths owned by the previous assembly but not by this one: back to pristine
if [ -f "$B/linux.manifest" ]; then
	comm -23 "$B/linux.manifest" "$B/linux.manifest.new" | while IFS= read -r f; do
		if [ -f "$PRISTINE/$f" ]; then
			if ! cmp -s "$PRISTINE/$f" "$TREE/$f"; then
				mkdir -p "$TREE/$(dirname "$f")"
				cp "$PRISTINE/$f" "$TREE/$f"
				log "restored $f from pristine"
			fi
		elif [ -e "$TREE/$f" ]; then
			rm -f "$TREE/$f"
			log "removed $f (no longer in the overlay)"
		fi
	done
fi
mv "$B/linux.manifest.new" "$B/linux.manifest"
log "tree assembled: $(wc -l < "$B/stage.files") overlay/patched files, $changed updated"
