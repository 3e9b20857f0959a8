#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Assemble the working tree build/linux: pristine 6.1 + overlay + patches.
#
# The result is first built in a staging area holding only the files the
# series touches; then only files whose content changed are copied into
# build/linux, so unchanged files keep their mtimes and the O= kernel
# builds stay warm.  build/linux.manifest lists the paths the assembly
# owns; a path dropped from the series is restored from pristine.
#
# Development knobs:
#   UE_EXTRA_OVERLAY=DIR       copy DIR (mirroring tree paths) after the overlay
#   UE_ALLOW_MISSING_PATCHES=1 warn instead of failing on a missing patch file
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OVERLAY_DIRS=(kernel include Documentation samples tools)
# Directories of the old 6.1 implementation that are replaced wholesale
OLD_DIRS=(samples/user_events tools/testing/selftests/user_events)

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
	cp -a "$PRISTINE" "$TREE.tmp"
	mv "$TREE.tmp" "$TREE"
fi

STAGE=$B/stage
rm -rf "$STAGE"
mkdir -p "$STAGE"

# 1. the old files that go away
(cd "$PRISTINE" && find "${OLD_DIRS[@]}" -type f 2>/dev/null) | sort > "$B/stage.deleted"

# 2. the overlay: every tracked or untracked, non-ignored file
(cd "$UE_REPO" && git ls-files -co --exclude-standard -- "${OVERLAY_DIRS[@]}") |
while IFS= read -r f; do
	[ -f "$UE_REPO/$f" ] || continue
	mkdir -p "$STAGE/$(dirname "$f")"
	cp -p "$UE_REPO/$f" "$STAGE/$f"
done
if [ -n "${UE_EXTRA_OVERLAY:-}" ]; then
	log "extra overlay: $UE_EXTRA_OVERLAY"
	cp -a "$UE_EXTRA_OVERLAY/." "$STAGE/"
fi

# 3. the patches, in series order
SERIES=$UE_REPO/patches/series
grep -v '^[[:space:]]*\(#\|$\)' "$SERIES" | awk '{print $1}' |
while IFS= read -r p; do
	pf=$UE_REPO/patches/$p
	if [ ! -f "$pf" ]; then
		[ "${UE_ALLOW_MISSING_PATCHES:-0}" = 1 ] || die "patches/$p listed in series but missing"
		log "WARNING: skipping missing patches/$p"
		continue
	fi
	# files the patch touches: a "--- a/X" line directly followed by "+++ b/Y"
	awk 'prev ~ /^--- / && /^\+\+\+ / {
		split(prev, o, /[ \t]/); split($0, n, /[ \t]/)
		print o[2]; print n[2] }
	     { prev = $0 }' "$pf" | sed 's|^[ab]/||' | grep -v '^/dev/null$' | sort -u |
	while IFS= read -r f; do
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

# 4. sync the staging area into the tree, content-wise
(cd "$STAGE" && find . -type f | sed 's|^\./||' | sort) > "$B/stage.files"
sort -u "$B/stage.files" "$B/stage.deleted" > "$B/linux.manifest.new"

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
