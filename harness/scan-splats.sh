#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scan kernel logs for splats.  Prints each offending line as FILE:LINE:
# TEXT and exits 1 if there is any, 0 if the logs are clean.
#
#   scan-splats.sh FILE...     scan
#   scan-splats.sh --patterns  list the patterns, one per line
#
# harness/splat-allow.txt holds extended regexps of lines that are
# expected (one per line, # comments).  A line there starting with
# "block:" allows the whole report that starts with a matching line, up to
# its "---[ end trace" or "</TASK>" line, or the "=====" line that closes
# a KASAN or KCSAN report.
set -euo pipefail

PATTERNS=(
	'BUG:'
	'WARNING:'
	'KASAN:'
	'UBSAN:'
	'Oops'
	'Call Trace'
	'general protection'
	'Kernel panic'
	'kernel BUG at'
	'possible circular locking'
	'possible recursive locking'
	'inconsistent lock state'
	'suspicious RCU usage'
	'sleeping function called from invalid context'
	'unreferenced object'
	'ODEBUG:'
	'rcu: INFO: rcu_.* stall'
)

if [ "${1:-}" = --patterns ]; then
	printf '%s\n' "${PATTERNS[@]}"
	exit 0
fi
[ $# -gt 0 ] || { echo "usage: $0 FILE... | --patterns" >&2; exit 2; }

allow=${UE_SPLAT_ALLOW:-$(dirname "$0")/splat-allow.txt}
re=$(IFS='|'; echo "${PATTERNS[*]}")
# A second report start (every pattern but the stack dump's header) ends
# an allowed block, whose own end line may be missing (no "</TASK>" on
# arm64 or s390)
starts=$(printf '%s\n' "${PATTERNS[@]}" | grep -vx 'Call Trace' | paste -sd '|')
# for the self-test: prove one pattern alone catches its sample
[ -n "${UE_SPLAT_ONLY:-}" ] && re=$UE_SPLAT_ONLY

awk -v re="$re" -v starts="$starts" -v allowfile="$allow" '
BEGIN {
	while ((getline l < allowfile) > 0) {
		if (l ~ /^[ \t]*(#|$)/) continue
		if (l ~ /^block:/) blk[++nb] = substr(l, 7); else al[++na] = l
	}
}
FNR == 1 { inblock = 0 }
{
	line = $0
	if (!inblock)
		for (i = 1; i <= nb; i++)
			if (line ~ blk[i]) { inblock = 1; rep = dumped = 0; break }
	# the first report start in a block, before its stack dump, is its
	# own; another one ends the block
	if (inblock && line ~ starts && (dumped || rep++)) inblock = 0
	if (inblock && line ~ /Call [Tt]race/) dumped = 1
	if (inblock) {
		if (line ~ /---\[ end trace|<\/TASK>|(^|\] )=+$/) inblock = 0
		next
	}
	if (line !~ re) next
	for (i = 1; i <= na; i++)
		if (line ~ al[i]) next
	printf "%s:%d: %s\n", FILENAME, FNR, line
	bad = 1
}
END { exit bad }' "$@"
