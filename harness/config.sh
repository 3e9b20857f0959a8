#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate the .config of a flavour (debug|release|kcsan|kcsan-strict) into
# build/obj-FLAVOUR.
#
# tinyconfig + guest.config + the kselftest config (+ debug.config,
# release.config or kcsan.config, + kcsan-strict.config for the strict
# flavour), merged with merge_config.sh -m and completed with olddefconfig in a scratch O= dir; the result replaces
# obj-FLAVOUR/.config only when it differs, so an unchanged config never
# triggers a rebuild.
# Every requested value must land in the final .config.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: config.sh debug|release|kcsan|kcsan-strict}
frags=("$UE_REPO/harness/configs/guest.config"
       "$TREE/tools/testing/selftests/user_events/config")
case $flavour in
debug)   frags+=("$UE_REPO/harness/configs/debug.config") ;;
release) frags+=("$UE_REPO/harness/configs/release.config") ;;
kcsan)   frags+=("$UE_REPO/harness/configs/kcsan.config") ;;
kcsan-strict)
	frags+=("$UE_REPO/harness/configs/kcsan.config"
	       "$UE_REPO/harness/configs/kcsan-strict.config") ;;
*) die "unknown flavour $flavour" ;;
esac

kc=$B/kconfig-$flavour
obj=$(objdir "$flavour")
mkdir -p "$kc" "$obj"
make -s -C "$TREE" O="$kc" tinyconfig >"$kc/make.log" 2>&1 || { cat "$kc/make.log"; die "tinyconfig failed"; }
"$TREE/scripts/kconfig/merge_config.sh" -m -O "$kc" "$kc/.config" "${frags[@]}" >"$kc/merge.log" 2>&1 ||
	{ cat "$kc/merge.log"; die "merge_config.sh failed"; }
make -s -C "$TREE" O="$kc" olddefconfig >>"$kc/make.log" 2>&1 || { cat "$kc/make.log"; die "olddefconfig failed"; }

# Verify: every CONFIG_X=v and "# CONFIG_X is not set" requested is
# there; a later fragment overrides an earlier one, as in merge_config.sh
declare -A last=()
for i in "${!frags[@]}"; do
	while IFS= read -r sym; do
		last[$sym]=$i
	done < <(grep -oE '^(# )?CONFIG_[A-Za-z0-9_]+' "${frags[$i]}" | sed 's/^# //')
done
bad=0
for i in "${!frags[@]}"; do
	f=${frags[$i]}
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			[ "${last[${BASH_REMATCH[1]}]}" = "$i" ] || continue
			grep -qxF -- "$line" "$kc/.config" && continue
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			[ "${last[${BASH_REMATCH[1]}]}" = "$i" ] || continue
			grep -q "^${BASH_REMATCH[1]}=" "$kc/.config" || continue
		else
			continue
		fi
		got=$(grep -E "^(# )?${BASH_REMATCH[1]}[= ]" "$kc/.config" || echo "absent")
		log "config $flavour: requested '$line' (${f#"$UE_REPO"/}), got '$got'"
		bad=1
	done < "$f"
done
[ $bad -eq 0 ] || die "$flavour config: some requested options did not land (see above)"

if ! cmp -s "$kc/.config" "$obj/.config"; then
	cp "$kc/.config" "$obj/.config"
	log "$flavour: .config updated"
fi
