#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian's own kernel configurations and its PREEMPT_RT tree, for the
# deb-* steps of "make check" (harness/check.sh).
#
#   distro.sh config NAME   extract Debian's configuration NAME (amd64,
#                           cloud-amd64, rt-amd64, arm64, cloud-arm64,
#                           rt-arm64) of package linux-config-6.1 into
#                           build/distro/config.NAME; prints its path
#   distro.sh rt-tree       update build/linux-rt: pristine 6.1 + Debian's
#                           PREEMPT_RT patches + the series; prints its path
#
# The amd64 configurations come from the installed linux-config-6.1
# (deps.sh distro), the arm64 ones from the same package for arm64, which
# "apt-get download" fetches with a private apt state for arm64
# (build/distro/apt: the machine's dpkg architectures stay as they are).
#
# The rt patches are debian/patches-rt/ of Debian's "linux" source
# package: only its debian.tar.xz is fetched (apt-get source --print-uris,
# then apt's own downloader with the checksum apt gives).  That needs a
# deb-src entry: without one, this script adds
# /etc/apt/sources.list.d/ue-deb-src.sources for the Debian mirrors of the
# machine's deb entries and runs apt-get update.  The version: the one of
# the installed linux-source-6.1 (the pristine tree), else UE_RT_DEBIAN
# (6.1.176-1: a mirror may serve the binaries of a security update but not
# its source).  Every rt patch that applies cleanly to pristine 6.1 is
# applied, in Debian's order; those that do not are listed in
# build/distro/rt-patches.txt (on 6.1.192 with 6.1.176-1's series: an
# ARM32 fix, a debugobjects annotation 6.1.y already has, a KVM VMX build
# fix), and the step fails unless the tree then has PREEMPT_RT.
# Then the series goes on top: the overlay files as assembled, the patches
# of patches/ in the order of patches/series; a patch that does not apply
# stops here with its file and hunk, and build/linux-rt is left as it was.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DB=$B/distro
mkdir -p "$DB"

# ensure_deb_src: apt knows a deb-src entry for the Debian mirrors
ensure_deb_src()
{
	apt-get source --print-uris linux >/dev/null 2>&1 && return 0
	local list=/etc/apt/sources.list.d/ue-deb-src.sources f
	log "adding deb-src entries for Debian's mirrors ($list)"
	[ "$(id -u)" -eq 0 ] || die "need root to add $list"
	{
		# deb822 files: each enabled stanza of type deb, as deb-src
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] && [ "$f" != "$list" ] || continue
			awk 'BEGIN { RS = ""; ORS = "\n\n" }
			     /(^|\n)Types:[^\n]*deb([ \n]|$)/ && /URIs:[^\n]*debian/ &&
			     !/(^|\n)Enabled: *no/ {
				sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f"
		done
		# one-line sources: "deb URI SUITE COMPONENTS"
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			sed -n 's/^deb\(  *\[[^]]*\]\)\{0,1\} \(.*debian.*\)$/Types: deb-src\nURIs: \2/p' "$f" |
				awk '/^URIs:/ { n = split($0, w, " ")
					printf "URIs: %s\nSuites: %s\nComponents:", w[2], w[3]
					for (i = 4; i <= n; i++) printf " %s", w[i]
					printf "\n\n"; next } { print }'
		done
	} > "$list.tmp"
	[ -s "$list.tmp" ] || { rm -f "$list.tmp"; die "no Debian deb entry to derive a deb-src entry from"; }
	mv "$list.tmp" "$list"
	apt-get -o DPkg::Lock::Timeout=600 update -q >"$DB/apt-update.log" 2>&1 ||
		{ tail -5 "$DB/apt-update.log" >&2; die "apt-get update failed"; }
}

# fetch_debian_tar VERSION: build/distro/linux_VERSION.debian.tar.xz
fetch_debian_tar()
{
	local v=$1 line url file sum
	[ -f "$DB/linux_$v.debian.tar.xz" ] && return 0
	line=$(cd "$DB" && apt-get source --print-uris "linux=$v" 2>/dev/null |
		grep "linux_$v.debian.tar.xz") || return 1
	read -r url file _ sum <<< "$line"
	url=${url//\'/}
	log "downloading $file"
	(cd "$DB" && /usr/lib/apt/apt-helper download-file "$url" "$file.part" "$sum") \
		>"$DB/download.log" 2>&1 || return 1
	mv "$DB/$file.part" "$DB/$file"
}

# rt_patches: build/distro/patches-rt-VERSION/ (with its series); prints it
rt_patches()
{
	local v tried=()
	ensure_deb_src
	for v in "$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)" \
		 "${UE_RT_DEBIAN:-6.1.176-1}"; do
		[ -n "$v" ] || continue
		tried+=("$v")
		fetch_debian_tar "$v" || continue
		if [ ! -f "$DB/patches-rt-$v/series" ]; then
			rm -rf "$DB/x" && mkdir -p "$DB/x"
			tar -xJf "$DB/linux_$v.debian.tar.xz" -C "$DB/x" debian/patches-rt
			rm -rf "$DB/patches-rt-$v"
			mv "$DB/x/debian/patches-rt" "$DB/patches-rt-$v"
			rm -rf "$DB/x"
		fi
		echo "$DB/patches-rt-$v"
		return 0
	done
	die "could not fetch debian/patches-rt of linux ${tried[*]} (see $DB/download.log)"
}

# rt_base: pristine + the rt patches that apply, in build/distro/rt-pristine
rt_base()
{
	local dir v base=$DB/rt-pristine p
	dir=$(rt_patches)
	v=${dir##*/patches-rt-}
	if [ -f "$base/.ue-rt" ] && [ "$(cat "$base/.ue-rt")" = "$v $(stat -c %Y "$PRISTINE/Makefile")" ]; then
		echo "$base"
		return 0
	fi
	log "applying Debian's rt patches of $v to pristine 6.1 ($base)"
	rm -rf "$base.tmp"
	# hard links: patch(1) writes a new file for each file it changes
	cp -al "$PRISTINE" "$base.tmp"
	: > "$DB/rt-patches.txt"
	while IFS= read -r p; do
		[[ -z $p || $p == \#* ]] && continue
		if (cd "$base.tmp" && patch -p1 --dry-run -s -N -F0 < "$dir/$p") >/dev/null 2>&1; then
			(cd "$base.tmp" && patch -p1 -s -N -F0 --no-backup-if-mismatch < "$dir/$p") ||
				die "rt patch $p failed after its dry run"
			echo "applied $p" >> "$DB/rt-patches.txt"
		else
			echo "skipped $p" >> "$DB/rt-patches.txt"
		fi
	done < "$dir/series"
	grep -q 'preempt_lazy_count' "$base.tmp/include/linux/trace_events.h" ||
		die "the rt patches did not give the rt tree (no preempt_lazy_count; $DB/rt-patches.txt)"
	echo "$v $(stat -c %Y "$PRISTINE/Makefile")" > "$base.tmp/.ue-rt"
	rm -rf "$base"
	mv "$base.tmp" "$base"
	log "rt patches: $(grep -c ^applied "$DB/rt-patches.txt") applied, $(grep -c ^skipped "$DB/rt-patches.txt") skipped ($DB/rt-patches.txt)"
	echo "$base"
}

# rt_tree: build/linux-rt = rt base + the series; files are replaced only
# when their content changes, so that O= builds of it stay warm
rt_tree()
{
	local base rt=$B/linux-rt stage=$DB/rt-stage f p
	local -A patched=()
	base=$(rt_base)
	[ -f "$B/linux.manifest" ] || die "no build/linux.manifest: assemble first"
	if [ ! -f "$rt/.ue-rt" ] || ! cmp -s "$rt/.ue-rt" "$base/.ue-rt"; then
		log "copying the rt base to $rt"
		rm -rf "$rt"
		cp -al "$base" "$rt"
	fi
	while IFS= read -r p; do
		for f in $(patch_files "$UE_REPO/patches/$p"); do patched[$f]=1; done
	done < <(series_rows | awk -F'\t' '$1 == "patch" { print $3 }')

	# The series' files in a stage: the overlay as assembled, the rest
	# from the rt base with our patches on top
	rm -rf "$stage"
	mkdir -p "$stage"
	while IFS= read -r f; do
		if [ -n "${patched[$f]:-}" ]; then
			[ -f "$base/$f" ] || die "the rt tree has no $f, which patches/ changes"
			mkdir -p "$stage/$(dirname "$f")"
			cp "$base/$f" "$stage/$f"
		elif [ -f "$TREE/$f" ]; then
			mkdir -p "$stage/$(dirname "$f")"
			cp -p "$TREE/$f" "$stage/$f"
		fi
	done < "$B/linux.manifest"
	while IFS= read -r p; do
		if ! (cd "$stage" && patch -p1 -s --no-backup-if-mismatch -r - < "$UE_REPO/patches/$p") \
		     >"$DB/rt-series.log" 2>&1; then
			sed 's/^/[harness]   /' "$DB/rt-series.log" >&2
			die "patches/$p does not apply to the rt tree (above); build/linux-rt unchanged"
		fi
	done < <(series_rows | awk -F'\t' '$1 == "patch" { print $3 }')

	# Into build/linux-rt: changed files replaced (never written through
	# a hard link into the rt base), files the series deletes removed
	while IFS= read -r f; do
		if [ -f "$stage/$f" ]; then
			cmp -s "$stage/$f" "$rt/$f" && continue
			mkdir -p "$rt/$(dirname "$f")"
			cp --remove-destination "$stage/$f" "$rt/$f"
		elif [ -e "$rt/$f" ]; then
			rm -f "$rt/$f"
		fi
	done < "$B/linux.manifest"
	echo "$rt"
}

# config NAME: Debian's config NAME extracted; prints the path
config()
{
	local name=$1 arch flavour deb out=$DB/config.$1 src
	case $name in
	amd64|cloud-amd64|rt-amd64|arm64|cloud-arm64|rt-arm64) ;;
	*) die "unknown Debian configuration '$name' (amd64, cloud-amd64, rt-amd64, arm64, cloud-arm64, rt-arm64)" ;;
	esac
	arch=${name##*-}
	flavour=none_$name
	[[ $name == rt-* ]] && flavour=rt_$arch
	src=/usr/src/linux-config-6.1/config.${arch}_$flavour.xz
	if [ "$arch" != amd64 ]; then
		deb=$(ls "$DB/apt-$arch"/linux-config-6.1_*_"$arch".deb 2>/dev/null | tail -n 1 || true)
		if [ -z "$deb" ]; then
			fetch_config_deb "$arch"
			deb=$(ls "$DB/apt-$arch"/linux-config-6.1_*_"$arch".deb | tail -n 1)
		fi
		rm -rf "$DB/apt-$arch/x"
		dpkg-deb -x "$deb" "$DB/apt-$arch/x"
		src=$DB/apt-$arch/x/usr/src/linux-config-6.1/config.${arch}_$flavour.xz
	fi
	[ -f "$src" ] || die "no $src (package linux-config-6.1 for $arch)"
	xz -dc "$src" > "$out.tmp"
	mv "$out.tmp" "$out"
	echo "$out"
}

# fetch_config_deb ARCH: linux-config-6.1 for ARCH into build/distro/apt-ARCH
fetch_config_deb()
{
	local arch=$1 d=$DB/apt-$1 f opts
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/etc"
	# the machine's Debian deb entries only (no deb-src, no other repos)
	: > "$d/etc/sources.list"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		     /(^|\n)Types:[^\n]*deb([ \n]|$)/ && /URIs:[^\n]*debian/ && !/(^|\n)Enabled: *no/ {
			sub(/Types:[^\n]*/, "Types: deb"); print }' "$f"
	done > "$d/etc/debian.sources"
	[ -f /etc/apt/sources.list ] && grep -E '^deb .*debian' /etc/apt/sources.list > "$d/etc/sources.list" || true
	opts=(-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o "Dir::State::status=/dev/null"
	      -o "Dir::Etc::SourceList=$d/etc/sources.list" -o "Dir::Etc::SourceParts=$d/etc"
	      -o "APT::Architecture=$arch" -o "APT::Architectures::=$arch")
	log "fetching linux-config-6.1 for $arch (apt state in ${d#"$UE_REPO"/})"
	apt-get "${opts[@]}" update -q >"$d/update.log" 2>&1 ||
		{ tail -5 "$d/update.log" >&2; die "apt-get update for $arch failed"; }
	(cd "$d" && apt-get "${opts[@]}" download linux-config-6.1) >"$d/download.log" 2>&1 ||
		{ tail -5 "$d/download.log" >&2; die "apt-get download linux-config-6.1 for $arch failed"; }
}

case ${1:-} in
config) config "${2:?usage: distro.sh config NAME}" ;;
rt-tree) rt_tree ;;
*) die "usage: distro.sh config NAME | rt-tree" ;;
esac
