#!/usr/bin/env bash
# fuzz/run.sh — build the libFuzzer harnesses with clang and run each for a bounded time.
#
#   bash fuzz/run.sh                      every target for 60 s, one after the other (what CI runs)
#   FUZZ_SECONDS=600 FUZZ_JOBS=2 bash fuzz/run.sh          10 minutes each, two at a time
#   bash fuzz/run.sh npy tokens           only these targets
#
# Targets: npy (attn::parse_npy), npz (attn::parse_npz), tensor_literal (lesson documents' tensors), lesson_document (the
# parser and render_markdown), tokens (the tokens file reader). Each runs with its dictionary
# (fuzz/dictionaries/) on a corpus in $FUZZ_BUILD_DIR/corpus/<target>, seeded from tests/data, the
# lessons and fuzz/seeds; the corpus grows from run to run. A crash, a leak, undefined behaviour, a
# timeout (10 s for one input) or an allocation over the memory limit stops that target: its input
# is saved under $FUZZ_BUILD_DIR/artifacts/<target>/ and this script exits 1. Turn every finding
# into a regression test under tests/ (docs/reliability.md).
#
# Settings, from the environment:
#   FUZZ_SECONDS    seconds per target (default 60)
#   FUZZ_JOBS       targets run at the same time (default 1)
#   FUZZ_BUILD_DIR  build folder (default build-fuzz)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}
build_dir=${FUZZ_BUILD_DIR:-build-fuzz}
all_targets=(npy npz tensor_literal lesson_document tokens)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")

say() { printf '%s\n' "fuzz: $*" >&2; }

# clang 14 with libFuzzer: Debian's clang package, installed like the other CI tools when missing.
if ! command -v clang++ >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    say "installing Debian's clang (libFuzzer)"
    sudo=(); [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends clang >/dev/null
  fi
  command -v clang++ >/dev/null 2>&1 || { say "clang++ is not installed: apt-get install clang"; exit 2; }
fi

# 1. Build: everything instrumented, Release-like optimisation with debug information.
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  generator=()
  command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
  say "configuring $build_dir/ with clang"
  cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DATTN_BUILD_FUZZERS=ON -DATTN_BUILD_TESTS=OFF -DATTN_BUILD_CLI=OFF -DATTN_BUILD_EXERCISES=OFF >/dev/null
fi
fuzzers=()
for target in "${targets[@]}"; do fuzzers+=("${target}_fuzzer"); done
cmake --build "$build_dir" --parallel "$(nproc 2>/dev/null || echo 2)" --target "${fuzzers[@]}"

# 2. Seed corpora (copied in again each run; libFuzzer keeps what it found next to them).
seed() {
  local target=$1 corpus="$build_dir/corpus/$1"
  mkdir -p "$corpus" "$build_dir/artifacts/$target" "$build_dir/logs"
  case "$target" in
    npy)
      cp tests/data/npy/*.npy "$corpus/"
      # Headers with a key twice, an unknown key, a shape that is not a tuple (issue 24).
      cp tests/data/hostile/*.npy "$corpus/"
      for file in tests/data/compute/*/in/*.npy; do
        cp "$file" "$corpus/$(basename "$(dirname "$(dirname "$file")")")-$(basename "$file")"
      done
      ;;
    npz)
      # Stored, deflated and hostile archives, and the state_dicts of the interop fixtures.
      cp tests/data/interop/npz/*.npz "$corpus/"
      # Members under a folder or in other capitals, overlapping entries, too much in all (issue 24).
      cp tests/data/hostile/*.npz "$corpus/"
      for file in tests/data/interop/*/model.npz; do cp "$file" "$corpus/$(basename "$(dirname "$file")").npz"; done
      ;;
    tensor_literal)
      cp fuzz/seeds/tensor_literal/* "$corpus/"
      # Every attn block of every lesson, one file each.
      local lesson
      for lesson in lessons/*/README.md; do
        awk -v prefix="$corpus/$(basename "$(dirname "$lesson")")-" '
          /^```attn / { inside = 1; n++; file = prefix n ".txt"; printf "" > file; next }
          /^```/ && inside { inside = 0; close(file); next }
          inside { print >> file }' "$lesson"
      done
      ;;
    lesson_document)
      local lesson
      for lesson in lessons/*/README.md; do cp "$lesson" "$corpus/$(basename "$(dirname "$lesson")").md"; done
      cp docs/lesson-format.md "$corpus/lesson-format.md"
      ;;
    tokens)
      cp fuzz/seeds/tokens/* "$corpus/"
      ;;
  esac
}

# The longest input each target is given: lesson documents are about 40 kB.
max_len() {
  case "$1" in
    lesson_document) echo 65536 ;;
    tensor_literal) echo 65536 ;;
    npz) echo 65536 ;;
    *) echo 8192 ;;
  esac
}

run() {
  local target=$1
  seed "$target"
  say "$target: ${seconds} s"
  "$build_dir/fuzz/${target}_fuzzer" "$build_dir/corpus/$target" \
    -dict="fuzz/dictionaries/$target.dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 \
    -max_len="$(max_len "$target")" -artifact_prefix="$build_dir/artifacts/$target/" -print_final_stats=1 \
    >"$build_dir/logs/$target.log" 2>&1
}

# 3. Run, FUZZ_JOBS at a time.
declare -A status=()
pids=()
names=()
for target in "${targets[@]}"; do
  run "$target" &
  pids+=($!)
  names+=("$target")
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" && status[${names[0]}]=0 || status[${names[0]}]=$?
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" && status[${names[$i]}]=0 || status[${names[$i]}]=$?
done

# 4. Report: executions and coverage of each target, and every finding.
failed=0
for target in "${targets[@]}"; do
  log="$build_dir/logs/$target.log"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  coverage=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
  corpus=$(find "$build_dir/corpus/$target" -type f | wc -l)
  if [ "${status[$target]}" -eq 0 ]; then
    printf 'fuzz: %-16s ok   %s executions in %s s, %s, corpus %s files\n' "$target" "${runs:-?}" "$seconds" "${coverage:-cov: ?}" "$corpus"
  else
    failed=1
    printf 'fuzz: %-16s FAILED (exit %s); the last lines of %s:\n' "$target" "${status[$target]}" "$log"
    tail -n 40 "$log"
    ls -l "$build_dir/artifacts/$target/"
  fi
done
exit "$failed"
