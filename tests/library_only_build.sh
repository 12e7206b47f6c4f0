#!/usr/bin/env bash
# tests/library_only_build.sh — the libraries alone, as another project uses them, and a configure
# that writes nothing into the source tree.
#
# Why: `add_subdirectory(attn)` with -DATTN_BUILD_TUTOR=OFF -DATTN_BUILD_CLI=OFF
# -DATTN_BUILD_TESTS=OFF must build attn::io, attn::attn and attn::fast and nothing else (no tutor, no
# mistakes, no exercises, no stub programs), get C++17 from the targets' compile features (the
# consumer sets no standard), link the fast path's BLAS through xtensor-blas's target (the
# consumer calls attn::fast::multi_head_attention, which calls cblas_sgemm), and leave the source
# tree exactly as it was (git status, ignored files included) — and so must a configure of the
# whole project.
#
# Run by .ci/run; the build folder is a temporary one outside the tree (ccache makes reruns quick).
set -euo pipefail
source_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say() { printf '%s\n' "library-only build: $*" >&2; }

snapshot() { git -C "$source_dir" status --porcelain --ignored --untracked-files=all 2>/dev/null | grep -v '^!! build' || true; }
before=$(snapshot)

mkdir -p "$work/consumer"
cat > "$work/consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(consumer LANGUAGES CXX)
add_subdirectory("$source_dir" attn)
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE attn::fast)
CMAKE
cat > "$work/consumer/main.cpp" <<'CPP'
// One head, D = 2, identity projections: row 0's weights are softmax([1/√2, 0]).
#include <cmath>
#include <cstdio>

#include "attn/fast.hpp"

int main() {
    const attn::fast::Tensor3 x = {{{1.0f, 0.0f}, {0.0f, 1.0f}}};
    attn::fast::AttentionParameters parameters;
    parameters.w_q = parameters.w_k = parameters.w_v = {{1.0f, 0.0f}, {0.0f, 1.0f}};
    parameters.no_output_projection = true;  // no W_o: the output is the head itself
    const auto result = attn::fast::multi_head_attention(x, x, x, parameters, attn::fast::AttentionOptions(1));
    const double expected = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0)));  // 0.66976155
    const double got = result.output(0, 0, 0);
    std::printf("output[0, 0, 0]: expected %.8f, got %.8f\n", expected, got);
    return std::fabs(got - expected) <= 1e-6 + 1e-6 * expected ? 0 : 1;
}
CPP

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
say "configuring the libraries alone"
cmake -S "$work/consumer" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DATTN_BUILD_TUTOR=OFF -DATTN_BUILD_CLI=OFF -DATTN_BUILD_TESTS=OFF >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; say "FAILED: configure"; exit 1; }

# Only the libraries and the consumer are targets: no tutor, no exercises, no stub programs.
targets=$(cmake --build "$work/build" --target help 2>/dev/null | sed -n 's/^\([A-Za-z0-9_]*\):.*/\1/p; s/^\.\.\. \([A-Za-z0-9_]*\).*/\1/p')
unexpected=$(printf '%s\n' "$targets" | grep -E '^(attn_tutor|attn_mistakes|attn_exercises|attn_cli|attn_tests|attn_catch_main|exercise_[0-9]+.*|attn_student_main)$' || true)
if [ -n "$unexpected" ]; then
  say "FAILED: targets that should be off were configured: $(echo $unexpected)"
  exit 1
fi

say "building attn::io, attn::attn, attn::fast and a program that calls the fast path"
cmake --build "$work/build" --parallel "$(nproc 2>/dev/null || echo 2)" >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; say "FAILED: build"; exit 1; }
"$work/build/consumer" || { say "FAILED: the consumer's number"; exit 1; }
built=$(find "$work/build" -name '*.a' -printf '%f\n' | sort | tr '\n' ' ')
[ "$built" = "libattn.a libattn_fast.a libattn_io.a " ] ||
  { say "FAILED: built $built, expected libattn.a libattn_fast.a libattn_io.a"; exit 1; }

# The whole project's configure (tutor, exercises, CLI, tests) writes nothing there either: the
# exercises' generated files go to the build folder, a student's file is made by `attn exercise`.
say "configuring the whole project (configure only)"
cmake -S "$source_dir" -B "$work/full" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >"$work/full.log" 2>&1 ||
  { cat "$work/full.log"; say "FAILED: configure of the whole project"; exit 1; }

after=$(snapshot)
if [ "$before" != "$after" ]; then
  say "FAILED: configuring or building changed the source tree:"
  diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") >&2 || true
  exit 1
fi
say "ok: only libattn_io.a, libattn.a and libattn_fast.a were built, the fast path links and computes, configuring left the source tree unchanged"
