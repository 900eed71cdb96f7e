#!/bin/sh
# Recreate the held-out evaluation course (Microsoft's "Data Science for Beginners", MIT) from a
# fetched git snapshot. See tests/data/heldout-ds-for-beginners.md for the rules: the questions were
# written before anything ran on this course; never tune on it.
#
# usage: scripts/heldout_course.sh GIT_DIR [DEST]
#   GIT_DIR  a bare clone or mirror of microsoft/Data-Science-For-Beginners, or of any fork whose
#            history holds the pinned commit below (e.g. davidpalaciosg/Data-Science-For-Beginners)
#   DEST     default /work/heldout/ds-for-beginners (keep it OUTSIDE the repository)
#
# Takes the English lessons only: the root README.md, for-teachers.md and, under the six numbered
# sections, every Markdown file and image, except translations/, translated_images/, solution/ and
# starter/ folders. No quiz app, no notebooks, no data files, no .github.
set -eu

COMMIT=a3aee58bd5ca26aac548116bdeb18c15e4881623   # upstream "Adding AI!", 2022-05-24

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 GIT_DIR [DEST]" >&2
    exit 1
fi
GIT_DIR=$1
DEST=${2:-/work/heldout/ds-for-beginners}

if ! git --git-dir="$GIT_DIR" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
    echo "$GIT_DIR does not hold commit $COMMIT; fetch microsoft/Data-Science-For-Beginners (or a fork that has it)." >&2
    exit 1
fi
if [ -e "$DEST" ] && [ -n "$(ls -A "$DEST")" ]; then
    echo "$DEST exists and is not empty; remove it first." >&2
    exit 1
fi
mkdir -p "$DEST"

PATHS=$(git --git-dir="$GIT_DIR" ls-tree -r --name-only "$COMMIT" \
    | grep -E '^(README\.md|for-teachers\.md|[1-6]-[^/]+/.*\.(md|png|PNG|jpg|jpeg|gif|svg|webp))$' \
    | grep -v -e '/translations/' -e '/translated_images/' -e '/solution/' -e '/starter/')

# A snapshot fetched with the team's `fetch` tool may lack its largest blobs (pdf/readme.pdf); git
# archive then prints "error: invalid object ... for 'pdf/readme.pdf'" but still writes every file
# asked for. The count check below is what tells whether the extraction is complete.
# shellcheck disable=SC2086  # no path in this list holds a space (checked when the set was made)
git --git-dir="$GIT_DIR" archive "$COMMIT" -- $PATHS | tar -x -C "$DEST"

WANT=$(printf '%s\n' "$PATHS" | wc -l)
GOT=$(find "$DEST" -type f | wc -l)
if [ "$WANT" -ne "$GOT" ]; then
    echo "extracted $GOT files but expected $WANT; the snapshot is missing objects." >&2
    exit 1
fi

echo "$(find "$DEST" -name '*.md' | wc -l) Markdown files, $(find "$DEST" -type f | wc -l) files, $(du -sh "$DEST" | cut -f1) in $DEST" >&2
