#!/usr/bin/env bash
# tools/check_new_lesson.sh [WORK_DIR] — proof that a lesson is a folder nothing else counts.
#
# In a scratch clone of this repository's HEAD it copies lesson 1's folder to lessons/99-copy,
# changes only the title lines of its two editions ("# Lesson 99 — …", "# Lección 99 — …"),
# configures and builds from scratch, and checks that lesson 99 is there everywhere: `attn list`,
# `attn check 99` (both languages), `attn lesson 99 --screens`, `attn exercise 99` with the
# folder's written-out solution, the per-lesson tests tagged [lesson99] and the folder's own tests
# (tests.cpp, named "99-copy - …"). No other file is
# edited. It takes a full build (about 8 minutes on 2 cores); the clone is removed at the end
# unless WORK_DIR is given.
set -euo pipefail
repository=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-}
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
step() { printf '== %s\n' "$*"; }
fail() { printf 'check_new_lesson: FAILED: %s\n' "$*" >&2; exit 1; }

step "a scratch clone of HEAD in $work/attn"
git clone --quiet --no-hardlinks "$repository" "$work/attn"
cd "$work/attn"

step "cp -r lessons/01-dot-product lessons/99-copy, and its two title lines"
cp -r lessons/01-dot-product lessons/99-copy
rm -f lessons/99-copy/exercise/exercise.cpp lessons/99-copy/exercise/exercise.cpp.*.bak
sed -i '1s/^# Lesson 1 — /# Lesson 99 — /' lessons/99-copy/README.md
sed -i '1s/^# Lección 1 — /# Lección 99 — /' lessons/99-copy/README.es.md
head -1 lessons/99-copy/README.md | grep -q '^# Lesson 99 — ' || fail "the English title line did not change"
head -1 lessons/99-copy/README.es.md | grep -q '^# Lección 99 — ' || fail "the Spanish title line did not change"
[ "$(git status --porcelain | grep -v '^?? lessons/99-copy/$')" = "" ] || fail "a file outside lessons/99-copy changed"

step "configure and build from scratch"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${ATTN_CMAKE_ARGS:-} >/dev/null
cmake --build build --parallel "$(nproc 2>/dev/null || echo 2)" >/dev/null

export NO_COLOR=1 ATTN_LANG=en ATTN_STATE_DIR=$work/state
attn=build/attn
step "attn list"
"$attn" list | grep -q '^ *99 ' || { "$attn" list; fail "attn list has no lesson 99"; }
step "attn check 99, in English and in Spanish"
"$attn" check 99 || fail "attn check 99"
"$attn" check 99 --lang es >/dev/null || fail "attn check 99 --lang es"
step "attn lesson 99 --screens"
"$attn" lesson 99 --screens --width 80 --height 24 >/dev/null || fail "attn lesson 99 --screens"
step "attn exercise 99 --file lessons/99-copy/exercise/solution.cpp"
"$attn" exercise 99 --file lessons/99-copy/exercise/solution.cpp | tail -3 || fail "attn exercise 99"
step "the per-lesson tests of lesson 99"
# (Catch2's listing exits with the number of tests it listed: its output is what counts.)
listed=$(build/attn_tests "[lesson99]" --list-test-names-only || true)
printf '%s\n' "$listed" | grep -q '^lesson 99 - copy - every expected value matches$' || fail "no test is tagged [lesson99]"
if [ -f lessons/01-dot-product/tests.cpp ]; then
  # The folder's own tests (tests.cpp) came along, named from the new folder.
  printf '%s\n' "$listed" | grep -q '^99-copy - ' || fail "lesson 99's own tests (tests.cpp) are not tagged [lesson99]"
fi
printf '%s\n' "$listed" | grep '^lesson 99 \|^99-copy - '

build/attn_tests "[lesson99]" || fail "the tests tagged [lesson99]"
step "lesson 99 is a lesson like the others: every check passed"
