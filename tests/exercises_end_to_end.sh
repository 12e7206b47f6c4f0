#!/usr/bin/env bash
# The exercise workflow as a student lives it, through ./tutor, for every exercise: the stub
# fails with the not-implemented message and the first hint; a compile error is shown with file
# and line; the reference solution passes and `attn progress` shows it; --reset keeps a backup.
# Last, every exercise passes, and no private copy of a student's program is left behind.
#
# It edits lessons/NN-slug/exercise/exercise.cpp, so it saves the student's files first and puts
# them back at the end (a file that was not there is removed). Progress goes to a temporary
# ATTN_STATE_DIR.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

state=$(mktemp -d)
saved=$(mktemp -d)
out=$(mktemp)
export ATTN_STATE_DIR=$state NO_COLOR=1 ATTN_LANG=en  # English whatever the locale
folders=()
for stub in lessons/[0-9]*-*/exercise/stub.cpp; do folders+=("$(basename "$(dirname "$(dirname "$stub")")")"); done
for folder in "${folders[@]}"; do
  [ -f "lessons/$folder/exercise/exercise.cpp" ] && cp "lessons/$folder/exercise/exercise.cpp" "$saved/$folder.cpp"
done
restore() {
  for folder in "${folders[@]}"; do
    if [ -f "$saved/$folder.cpp" ]; then
      cp "$saved/$folder.cpp" "lessons/$folder/exercise/exercise.cpp"
    else
      rm -f "lessons/$folder/exercise/exercise.cpp"
    fi
  done
  rm -rf "$state" "$saved" "$out"
}
trap restore EXIT

fail() { echo "exercises end to end: FAILED: $*" >&2; exit 1; }
expect_exit() {  # expect_exit CODE command...
  local code=$1; shift
  set +e; "$@" >"$out" 2>&1; local got=$?; set -e
  [ "$got" -eq "$code" ] || { cat "$out"; fail "'$*' exited $got, expected $code"; }
}
expect_output() {  # expect_output TEXT WHAT
  grep -qF -- "$1" "$out" || { cat "$out"; fail "$2: no '$1'"; }
}

checks=0
for folder in "${folders[@]}"; do
  n=$((10#${folder%%-*}))
  exercise=lessons/$folder/exercise
  student=$exercise/exercise.cpp
  echo "exercise $n ($folder)"

  cp "$exercise/stub.cpp" "$student"
  expect_exit 1 ./tutor exercise "$n"
  expect_output "not implemented yet" "exercise $n, the stub"
  expect_output "Hint 1 of 3" "exercise $n, the stub"

  printf 'this is not C++\n' > "$student"
  expect_exit 1 ./tutor exercise "$n"
  expect_output "your code does not compile" "exercise $n, a compile error"
  expect_output "$student:1:" "exercise $n, a compile error"

  cp "$exercise/solution.cpp" "$student"
  expect_exit 0 ./tutor exercise "$n"
  expect_output " passed, 0 failed" "exercise $n, the solution"
  expect_output "Exercise $n passes." "exercise $n, the solution"
  expect_exit 0 ./tutor progress
  expect_output "✓ exercise $n" "exercise $n, progress"

  expect_exit 0 ./tutor exercise "$n" --reset
  backup=$(sed -n 's/^Your file was saved as //p' "$out")
  [ -f "$backup" ] || fail "exercise $n: no backup at '$backup'"
  cmp -s "$backup" "$exercise/solution.cpp" || fail "exercise $n: the backup is not the student's file"
  cmp -s "$student" "$exercise/stub.cpp" || fail "exercise $n: the stub was not restored"
  rm -f "$backup"
  cp "$exercise/solution.cpp" "$student"  # passing again, for the totals below
  expect_exit 0 ./tutor exercise "$n"
  checks=$((checks + 5))
done

expect_exit 0 ./tutor progress
expect_output "${#folders[@]} of ${#folders[@]} exercises pass" "progress"
leftovers=$(find "${ATTN_BUILD_DIR:-build}/exercises/runs" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
[ "$leftovers" -eq 0 ] || fail "$leftovers private copies of a student's program were left in ${ATTN_BUILD_DIR:-build}/exercises/runs"
echo "exercises end to end: $((checks + 2)) passed, 0 failed (${#folders[@]} exercises)"
