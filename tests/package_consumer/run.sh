#!/usr/bin/env bash
# Installs attn from an existing build folder into a temporary prefix, then configures, builds and
# runs tests/package_consumer against it with find_package(attn REQUIRED): one program on
# attn::attn and attn::fast, one on attn::io alone. Exit 0 when both run.
#   bash tests/package_consumer/run.sh [BUILD_DIR]      (default: build)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build_dir=${1:-build}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cmake --build "$build_dir" --target attn_io attn attn_fast >/dev/null
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S tests/package_consumer -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$scratch/build" >/dev/null
"$scratch/build/consumer"
"$scratch/build/io_consumer"
