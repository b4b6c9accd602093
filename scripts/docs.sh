#!/usr/bin/env bash
# Builds the DocC catalogs of StreamTaskCore, StreamTaskFraming, StreamTaskHTTP, StreamTaskKit (the umbrella) and
# StreamTaskDNSSD, and fails on any warning: a symbol link that does not resolve (or resolves to more than one overload), a topic that
# names nothing.
#
#   scripts/docs.sh                 # check both catalogs
#   scripts/docs.sh --output DIR    # and keep the archives in DIR
#
# The symbol graphs come from a build of the two targets of their own (.build-docs, about
# 3 minutes from scratch on 2 cores), so the main build's flags stay as they are. Under CI,
# scripts/test.sh runs this.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

output=""
if [[ "${1:-}" == --output ]]; then
    output="${2:?usage: $0 [--output DIR]}"
fi
scratch=.build-docs
graphs="$scratch/symbol-graphs"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$graphs"

status=0
# The umbrella, StreamTaskKit, has no code of its own: its catalog is articles only (its
# symbol graph would repeat the core's and HTTP's, whose own catalogs document them).
echo "docs.sh: converting Sources/StreamTaskKit/Docs.docc (articles only)"
if ! docc convert Sources/StreamTaskKit/Docs.docc \
    --fallback-display-name StreamTaskKit --fallback-bundle-identifier StreamTaskKit \
    --output-path "${output:-$work}/StreamTaskKit.doccarchive" --warnings-as-errors; then
    echo "docs.sh: StreamTaskKit's catalog has warnings (above)" >&2
    status=1
fi
for module in StreamTaskCore StreamTaskFraming StreamTaskHTTP StreamTaskDNSSD; do
    echo "docs.sh: building $module's symbol graph"
    swift build --target "$module" --scratch-path "$scratch" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs"
    # Only the module's own graph (which must be there) and its extensions of other modules
    # (which may not), not its dependencies'.
    mkdir -p "$work/$module"
    cp "$graphs/$module.symbols.json" "$work/$module/"
    for extension in "$graphs/$module"@*.symbols.json; do
        if [[ -e "$extension" ]]; then cp "$extension" "$work/$module/"; fi
    done
    archive="${output:-$work}/$module.doccarchive"
    echo "docs.sh: converting Sources/$module/Docs.docc"
    if ! docc convert "Sources/$module/Docs.docc" \
        --additional-symbol-graph-dir "$work/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "$module" \
        --output-path "$archive" --warnings-as-errors; then
        echo "docs.sh: $module's catalog has warnings (above)" >&2
        status=1
    fi
done
exit "$status"
