#!/usr/bin/env bash
# Formats the Swift sources with the toolchain's swift-format (.swift-format at the root) and
# gives every file the licence header; with --check, changes nothing and fails if a file lacks
# the header or is not formatted. .ci/run runs the check.
#
#   scripts/format.sh          # format in place, add missing headers
#   scripts/format.sh --check  # what CI runs
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

check=""
[[ "${1:-}" == --check ]] && check=1

header='//===----------------------------------------------------------------------===//
//
// This source file is part of the swift-stream-task-kit open source project
//
// Licensed under Apache License v2.0; see LICENSE for license information
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//'

mapfile -t files < <(git ls-files --cached --others --exclude-standard -- 'Sources/*.swift' 'Examples/*.swift' 'Tests/*.swift' \
    'Benchmarks/*.swift' 'Fuzz/*.swift' 'Package.swift' | grep -v '^Tests/StreamTaskKitTests/Peers/')

# A manifest's first line must stay its tools-version comment: its header comes second.
has_header() {
    if [[ "$1" == Package.swift || "$1" == */Package.swift ]]; then
        [[ "$(tail -n +2 "$1" | head -c ${#header})" == "$header" ]]
    else
        [[ "$(head -c ${#header} "$1")" == "$header" ]]
    fi
}

status=0
for file in "${files[@]}"; do
    if ! has_header "$file"; then
        if [[ -n "$check" ]]; then
            echo "format.sh: $file has no licence header (scripts/format.sh adds it)" >&2
            status=1
        elif [[ "$file" == Package.swift || "$file" == */Package.swift ]]; then
            { head -n 1 "$file"; printf '%s\n' "$header"; tail -n +2 "$file"; } >"$file.new" && mv "$file.new" "$file"
        else
            { printf '%s\n\n' "$header"; cat "$file"; } >"$file.new" && mv "$file.new" "$file"
        fi
    fi
done

# The documents' samples (Examples/Samples) keep the layout of the documents they are copied
# from, character for character (scripts/check-samples.py), and the ported Darwin programs
# (Examples/Ported) are exactly what scripts/port-from-darwin.sh makes of Tests/DarwinPrograms,
# which are written as Darwin code is: swift-format leaves all three alone.
formatted=()
for file in "${files[@]}"; do
    case "$file" in
    Examples/Samples/* | Examples/Ported/* | Tests/DarwinPrograms/*) ;;
    *) formatted+=("$file") ;;
    esac
done

if [[ -n "$check" ]]; then
    if ! swift format lint --strict --parallel "${formatted[@]}"; then
        echo "format.sh: files are not formatted (above); run scripts/format.sh" >&2
        status=1
    fi
else
    swift format format --in-place --parallel "${formatted[@]}"
fi
exit "$status"
