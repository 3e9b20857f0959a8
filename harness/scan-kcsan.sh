#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Sort the KCSAN reports of a kernel log into ours and the rest.
#
#   scan-kcsan.sh LOG VMLINUX
#
# A report ("BUG: KCSAN: ..." up to its closing "=====" line) is ours
# when the racing access of either side is in code of the series: a file
# it provides whole (the overlay: kernel/trace/trace_events_user.c, ...),
# or a line its patches change in a 6.1 file (the hooks in kernel/fork.c,
# the core tracing fixes), counting the functions inlined at that access.
# The lines come from VMLINUX's debug info through scripts/faddr2line;
# without it, the function of the access decides (ours: defined by a
# file the series provides whole).
#
# Prints one line per distinct report, "ours:" or "core:", with how often
# it came, where the accesses are and, for core reports, a user_events
# function on the stacks if there is one. Exits 1 if any report is ours.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

logf=${1:?usage: scan-kcsan.sh LOG VMLINUX}
vmlinux=${2:?usage: scan-kcsan.sh LOG VMLINUX}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The reports, one file each, without the time stamps
awk -v dir="$tmp" '
{ sub(/^\[ *[0-9.]+\] /, "") }
/BUG: KCSAN: / { n++; f = sprintf("%s/r%05d", dir, n); inr = 1 }
inr { print > f }
inr && /^=+$/ { inr = 0; close(f) }' "$logf"
reports=("$tmp"/r*)
[ -e "${reports[0]}" ] || exit 0

# What the series owns: whole files it adds, line ranges it changes
: > "$tmp/new" ; : > "$tmp/ranges"
while IFS= read -r f; do
	case $f in
	kernel/*|include/*|fs/*|mm/*|lib/*|arch/*) ;;
	*) continue ;;
	esac
	case $f in *.c|*.h) ;; *) continue ;; esac
	[ -f "$TREE/$f" ] || continue
	# a file of the overlay is the series' own, a patched one in parts
	if [ -f "$UE_REPO/$f" ] || [ ! -f "$PRISTINE/$f" ]; then
		echo "$f" >> "$tmp/new"
		continue
	fi
	diff -U0 "$PRISTINE/$f" "$TREE/$f" |
	awk -v f="$f" '/^@@ / {
		split($3, a, ","); start = substr(a[1], 2) + 0
		len = (2 in a) ? a[2] + 0 : 1
		if (len == 0) len = 1	# a deletion: the line after it
		print f, start, start + len - 1 }' >> "$tmp/ranges"
done < "$B/linux.manifest"

# The functions defined by the files the series provides (the fallback)
: > "$tmp/funcs"
while IFS= read -r f; do
	o=$(dirname "$vmlinux")/${f%.c}.o
	[ "${f%.c}" != "$f" ] && [ -f "$o" ] &&
		nm --defined-only "$o" | awk '$2 ~ /[tT]/ { print $3 }' >> "$tmp/funcs"
done < "$tmp/new"
sort -u -o "$tmp/funcs" "$tmp/funcs"

# ours_loc "path:line": is this source location ours?
ours_loc()
{
	local loc=$1 path line f
	path=${loc%:*} line=${loc##*:}
	line=${line%% *}
	while IFS= read -r f; do
		[[ $path == *"$f" ]] && return 0
	done < "$tmp/new"
	[[ $line =~ ^[0-9]+$ ]] || return 1
	awk -v p="$path" -v l="$line" '
		{ n = length($1) }
		substr(p, length(p) - n + 1) == $1 && l >= $2 && l <= $3 { hit = 1 }
		END { exit !hit }' "$tmp/ranges"
}

# resolve FRAME: the source locations of FRAME (func+off/size), the
# access first, then the functions it is inlined into; cached
resolve()
{
	local key=${1//\//_}
	if [ ! -f "$tmp/loc-$key" ]; then
		"$TREE/scripts/faddr2line" "$vmlinux" "$1" 2>/dev/null |
			sed -n 's/^\(.* at \|(inlined by) .* at \)//p' |
			sed 's/ (discriminator [0-9]*)//' > "$tmp/loc-$key"
	fi
	cat "$tmp/loc-$key"
}

ours=0
declare -A seen count where via
order=()
for r in "${reports[@]}"; do
	title=$(grep -m1 -o 'BUG: KCSAN: .*' "$r")
	# the first frame after each "... by task N on cpu N:" line
	mapfile -t tops < <(awk '/ (by task|by interrupt|by [a-z]+ ).* on cpu [0-9]+:$/ {
		getline; sub(/^ +/, ""); print }' "$r")
	mine=0 locs=
	for fr in "${tops[@]}"; do
		[ -n "$fr" ] || continue
		mapfile -t ls < <(resolve "$fr")
		locs+="${locs:+ | }${fr%%/*} at ${ls[0]:-?}"
		if [ ${#ls[@]} -gt 0 ]; then
			for l in "${ls[@]}"; do
				ours_loc "$l" && mine=1
			done
		elif grep -qxF -- "${fr%%+*}" "$tmp/funcs"; then
			mine=1
		fi
	done
	key="$mine $title"
	if [ -z "${seen[$key]:-}" ]; then
		seen[$key]=1
		order+=("$key")
		count[$key]=0
		where[$key]=$locs
		via[$key]=
		if [ $mine = 0 ]; then
			fn=$(awk '/^ +[A-Za-z_][A-Za-z0-9_.]*\+0x/ {
				f = $1; sub(/\+.*/, "", f); print f }' "$r" |
			     grep -xF -f "$tmp/funcs" | head -1)
			[ -n "$fn" ] && via[$key]=" [on a stack: $fn]"
		fi
	fi
	count[$key]=$((count[$key] + 1))
	[ $mine = 1 ] && ours=$((ours + 1))
done

for key in "${order[@]}"; do
	kind=core
	[ "${key%% *}" = 1 ] && kind=ours
	printf '%s: %s (%dx) at %s%s\n' "$kind" "${key#* }" "${count[$key]}" \
		"${where[$key]}" "${via[$key]}"
done
[ $ours -eq 0 ]
