#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# "make docs": build Documentation/trace of the assembled tree with Sphinx
# (Debian's python3-sphinx and python3-sphinx-rtd-theme) through the
# kernel's own htmldocs target and Documentation/conf.py:
#
#   make -C build/linux O=build/docs SPHINXDIRS=trace htmldocs
#
# Output: build/docs/Documentation/output/trace/user_events.html, the full
# log in build/docs/sphinx.log.  Every run starts from an empty Sphinx
# output, because an incremental build does not repeat the warnings of
# files it does not re-read.  Fails if Sphinx fails or reports a warning
# or an error about our files (the rst, or kernel-doc pulled from our
# sources); the warnings of the rest of 6.1 are only counted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$UE_REPO/harness/deps.sh" docs
lock_build
"$UE_REPO/harness/assemble.sh"

out=$B/docs
html=$out/Documentation/output/trace
mkdir -p "$out"
rm -rf "$out/Documentation/output"
log "building Documentation/trace with Sphinx $(sphinx-build --version 2>&1 | awk '{print $NF}') (O=${out#"$UE_REPO"/})"
start=$SECONDS
rc=0
make -C "$TREE" O="$out" SPHINXDIRS=trace htmldocs > "$out/sphinx.log" 2>&1 || rc=$?

# Our files, as Sphinx and kernel-doc name them in their messages
ours='Documentation/trace/user_events\.rst|include/(uapi/)?linux/user_events\.h|kernel/trace/trace_events_user(_kunit)?\.c|[^a-z_]user_events[^a-z_]'
grep -E '(WARNING|ERROR|SEVERE|CRITICAL|warning:|error:)' "$out/sphinx.log" > "$out/sphinx-warnings.log" || true
ourw=$(grep -cE "$ours" "$out/sphinx-warnings.log" || true)
otherw=$(grep -cvE "$ours" "$out/sphinx-warnings.log" || true)

log "Sphinx done in $((SECONDS - start)) s: $ourw warning(s)/error(s) from our files, $otherw from the rest of 6.1 (ignored; list: ${out#"$UE_REPO"/}/sphinx-warnings.log)"
if [ "$ourw" != 0 ]; then
	grep -E "$ours" "$out/sphinx-warnings.log" >&2
	die "Sphinx reported problems in our documentation"
fi
if [ $rc -ne 0 ]; then
	tail -30 "$out/sphinx.log" >&2
	die "the Sphinx build failed (log: ${out#"$UE_REPO"/}/sphinx.log)"
fi
[ -s "$html/user_events.html" ] || die "no $html/user_events.html"
log "docs: file://$html/user_events.html"
