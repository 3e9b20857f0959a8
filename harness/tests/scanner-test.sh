#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of scan-splats.sh on the captured sample logs in splats/.
# Each sample's first line says what the scanner must report
# ("# expect: PATTERN") or "# expect: clean".  Prints TAP; exits 1 on any
# failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scan=$here/../scan-splats.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/empty-allow"

n=0
fail=0
result() # ok|not-ok description
{
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fail=1
	fi
}

expected=()
for f in "$here"/splats/*.log; do
	name=$(basename "$f" .log)
	want=$(sed -n '1s/^# expect: //p' "$f")
	tail -n +2 "$f" > "$tmp/$name.log"
	allow=$tmp/empty-allow
	case $name in clean-allowed*|allowed-*) allow=$here/splats/allow.txt ;; esac
	out=$(UE_SPLAT_ALLOW=$allow "$scan" "$tmp/$name.log")
	rc=$?
	case $want in
	clean*)
		if [ $rc -eq 0 ] && [ -z "$out" ]; then
			result ok "scanner passes $name"
		else
			result not-ok "scanner passes $name (rc=$rc: $out)"
		fi
		;;
	*)
		expected+=("$want")
		only=$(UE_SPLAT_ONLY=$want UE_SPLAT_ALLOW=$allow "$scan" "$tmp/$name.log")
		if [ $rc -eq 1 ] && [ -n "$only" ] && grep -qE -- "$want" <<< "$only"; then
			result ok "scanner catches $name"
		else
			result not-ok "scanner catches $name (rc=$rc, wanted '$want')"
		fi
		;;
	esac
done

# Every pattern of the scanner has a sample that proves it is caught
missing=
while IFS= read -r p; do
	hit=0
	for e in "${expected[@]}"; do [ "$e" = "$p" ] && hit=1; done
	[ $hit = 1 ] || missing+=" '$p'"
done < <("$scan" --patterns)
if [ -z "$missing" ]; then
	result ok "scanner: every pattern has a sample"
else
	result not-ok "scanner: every pattern has a sample (missing:$missing)"
fi
echo "1..$n"
exit $fail
