#!/usr/bin/env bash
# tests/doc_paths.sh — every repository path that the documentation writes in backticks exists.
#
# Why: files move (lessons/NN-slug/ took in five folders' worth of files) and a document that
# names a path that is gone sends a newcomer nowhere. Checked: README.md, docs/*.md and every
# lesson's README*.md; a span counts as a path when it starts with include/, src/, lessons/,
# tools/, tests/, docs/, bench/, fuzz/, cmake/ or exercises/ (the old layout's folder). A path
# with placeholders must match something as a pattern: NN is two digits, slug and XX any name,
# * anything (lessons/NN-slug/exercise/stub.cpp); one with <…>, {…}, … or $VAR is skipped. A path
# may name a file, a folder or the stem of files (src/fast/kernels for kernels.hpp and
# kernels.cpp); one that git ignores (a student's exercise.cpp) is something a run creates.
# Exit 1 listing each missing path with its document and line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

missing=0
checked=0
for document in README.md docs/*.md lessons/*/README*.md; do
  while IFS=: read -r line span; do
    path=${span#\`}
    path=${path%\`}
    path=${path%% *}
    case "$path" in
      include/*|src/*|lessons/*|tools/*|tests/*|docs/*|bench/*|fuzz/*|cmake/*|exercises/*) ;;
      *) continue ;;
    esac
    case "$path" in
      *'<'*|*'>'*|*'{'*|*…*|*'$'*) continue ;;
    esac
    path=${path%%[:#]*}            # a line number or an anchor
    path=${path%[.,;)]}             # punctuation after the path
    pattern=${path//NN/[0-9][0-9]}
    pattern=${pattern//slug/*}
    pattern=${pattern//XX/*}
    checked=$((checked + 1))
    if compgen -G "$pattern" >/dev/null || compgen -G "$pattern.*" >/dev/null; then continue; fi
    if git check-ignore -q "$path" 2>/dev/null; then continue; fi
    echo "$document:$line: \`$path\` does not exist"
    missing=$((missing + 1))
  done < <(grep -noE '`[^`]+`' "$document" || true)
done
if [ "$missing" -gt 0 ]; then
  echo "doc paths: $missing of $checked paths in backticks do not exist"
  exit 1
fi
echo "doc paths: all $checked paths in backticks exist"
