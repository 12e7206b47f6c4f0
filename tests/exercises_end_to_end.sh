#!/usr/bin/env bash
# The exercise workflow as a student lives it, through ./tutor: the stub fails with the
# not-implemented message and the first hint; a compile error is shown with file and line; the
# reference solution passes and `attn progress` shows it; --reset keeps a backup.
#
# It edits lessons/01-dot-product/exercise.cpp, so it saves the student's file first and puts it
# back at the end. Progress goes to a temporary ATTN_STATE_DIR.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

student=lessons/01-dot-product/exercise.cpp
saved=$(mktemp)
state=$(mktemp -d)
export ATTN_STATE_DIR=$state NO_COLOR=1
[ -f "$student" ] && cp "$student" "$saved"
restore() { if [ -s "$saved" ]; then cp "$saved" "$student"; fi; rm -rf "$saved" "$state"; }
trap restore EXIT

fail() { echo "exercises end to end: FAILED: $*" >&2; exit 1; }
expect_exit() {  # expect_exit CODE OUTPUT_FILE command...
  local code=$1 out=$2; shift 2
  set +e; "$@" >"$out" 2>&1; local got=$?; set -e
  [ "$got" -eq "$code" ] || { cat "$out"; fail "'$*' exited $got, expected $code"; }
}
out=$(mktemp)

cp exercises/01-dot-product/stub.cpp "$student"
expect_exit 1 "$out" ./tutor exercise 1
grep -q "lesson 1: exercise::dot_attention is not implemented yet" "$out" || fail "no not-implemented message"
grep -q "Hint 1 of 3" "$out" || fail "no first hint"

printf 'this is not C++\n' > "$student"
expect_exit 1 "$out" ./tutor exercise 1
grep -q "your code does not compile" "$out" || fail "no compile-error headline"
grep -q "lessons/01-dot-product/exercise.cpp:1:" "$out" || { cat "$out"; fail "the compile error does not name file and line"; }

cp exercises/01-dot-product/solution.cpp "$student"
expect_exit 0 "$out" ./tutor exercise 1
grep -q "4 passed, 0 failed" "$out" || fail "the solution did not pass every case"
expect_exit 0 "$out" ./tutor progress
grep -q "✓ exercise 1" "$out" || { cat "$out"; fail "progress does not show exercise 1 passing"; }

expect_exit 0 "$out" ./tutor exercise 1 --reset
backup=$(sed -n 's/^Your file was saved as //p' "$out")
[ -f "$backup" ] || fail "no backup at '$backup'"
cmp -s "$backup" exercises/01-dot-product/solution.cpp || fail "the backup is not the student's file"
cmp -s "$student" exercises/01-dot-product/stub.cpp || fail "the stub was not restored"
rm -f "$backup"
rm -f "$out"
echo "exercises end to end: 4 passed, 0 failed"
