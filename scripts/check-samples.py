#!/usr/bin/env python3
"""Checks that every ```swift block of the README and the DocC articles is compiled.

Each block must appear, character for character, in one Swift file under Examples/Samples
between a `// sample: DOCUMENT N` line (N counts the document's ```swift blocks from 1) and an
`// end sample` line, indented as a whole or not. The Swift files are built by `swift build`
(the DocSamples target and the sample-* executables), so a sample that stops compiling fails
the build, and one edited in its document but not here (or the other way round) fails this
check. `import` lines that open a block need only be among the file's imports, since a function
body cannot hold them.

Blocks that are not Swift programs (a package manifest's lines) are named in MANIFEST_BLOCKS.

  scripts/check-samples.py      # exits 1 and prints the differences if any block drifted
"""
import difflib
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTS = ["README.md"] + sorted(glob.glob("Sources/*/Docs.docc/*.md", root_dir=ROOT))
SAMPLES = sorted(glob.glob("Examples/Samples/**/*.swift", root_dir=ROOT, recursive=True))
# Package.swift lines, not code for a target: `swift package` reads them, not `swift build`.
MANIFEST_BLOCKS = {("README.md", 3)}
MARKER = re.compile(r"^(\s*)// sample: (\S+) (\d+)\s*$")


def blocks(document):
    """The document's ```swift blocks, in order."""
    found, current = [], None
    with open(os.path.join(ROOT, document), encoding="utf-8") as file:
        for line in file:
            if current is None and line.rstrip() == "```swift":
                current = []
            elif current is not None and line.rstrip() == "```":
                found.append("".join(current))
                current = None
            elif current is not None:
                current.append(line)
    return found


def marked_regions():
    """(document, number) -> (file, imports, text) for every marked region of the samples."""
    regions = {}
    for path in SAMPLES:
        with open(os.path.join(ROOT, path), encoding="utf-8") as file:
            lines = file.readlines()
        imports = {line.strip() for line in lines if line.startswith("import ")}
        index = 0
        while index < len(lines):
            match = MARKER.match(lines[index])
            index += 1
            if not match:
                continue
            indent, key = match.group(1), (match.group(2), int(match.group(3)))
            body = []
            while index < len(lines) and lines[index].strip() != "// end sample":
                line = lines[index]
                body.append(line[len(indent):] if line.startswith(indent) else line.lstrip(" "))
                index += 1
            if key in regions:
                raise SystemExit(f"check-samples: {key[0]} block {key[1]} is marked twice ({regions[key][0]}, {path})")
            regions[key] = (path, imports, "".join(body))
    return regions


def main():
    regions = marked_regions()
    failures = 0
    checked = 0
    for document in DOCUMENTS:
        for number, block in enumerate(blocks(document), start=1):
            key = (document, number)
            if key in MANIFEST_BLOCKS:
                continue
            region = regions.pop(key, None)
            if region is None:
                print(f"check-samples: {document}, swift block {number}, is compiled nowhere: "
                      f"add it to a file under Examples/Samples between `// sample: {document} {number}` and `// end sample`")
                failures += 1
                continue
            path, imports, text = region
            lines = block.splitlines(keepends=True)
            opening = []
            while lines and (lines[0].startswith("import ") or (opening and not lines[0].strip())):
                opening.append(lines.pop(0))
            missing = [line.strip() for line in opening if line.strip() and line.strip() not in imports]
            # The whole block, or (in a function body) the block after its imports.
            if text == block or (opening and not missing and text == "".join(lines)):
                checked += 1
                continue
            failures += 1
            print(f"check-samples: {document}, swift block {number}, differs from {path}:")
            if missing:
                print(f"  imports not in {path}: {', '.join(missing)}")
            expected = block if text.startswith("import ") or not opening else "".join(lines)
            sys.stdout.writelines(difflib.unified_diff(
                expected.splitlines(keepends=True), text.splitlines(keepends=True), document, path))
    for (document, number), (path, _, _) in sorted(regions.items()):
        print(f"check-samples: {path} marks {document} block {number}, which does not exist")
        failures += 1
    print(f"check-samples: {checked} samples match their documents, {failures} do not")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
