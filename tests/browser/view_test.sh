#!/usr/bin/env bash
# The HTML head view in a real browser: `attn view` writes pages, headless Chromium renders them
# offline, and view_test.mjs checks what a student would see (its header lists the checks).
# Screenshots go to <build>/browser/. `view_test.sh --install-only` only installs chromium.
#
# Why a browser: the page is JavaScript drawing SVG; only a browser can say that it draws one line
# per (query, key) pair, that the head selector works and that the console stays clean.
#
# Needs Node 20 and Debian's chromium; installs chromium with apt-get when missing (through sudo
# when not root) and playwright-core, pinned in package-lock.json, with `npm ci`. It never
# downloads a browser of its own. Settings, from the environment:
#   ATTN_BUILD_DIR   build folder holding attn (default: build; built through ./tutor if needed)
#   ATTN_CHROMIUM    the browser (default: /usr/bin/chromium)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here/../.."

build_dir=${ATTN_BUILD_DIR:-build}
chromium=${ATTN_CHROMIUM:-/usr/bin/chromium}
say() { printf '%s\n' "browser test: $*" >&2; }

install_chromium() {
  [ -x "$chromium" ] && return 0
  say "installing Debian's chromium with apt-get (once)"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || { say "not root and no sudo: apt-get install chromium, then run again"; exit 2; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends chromium >/dev/null
  [ -x "$chromium" ] || { say "apt-get installed chromium but $chromium is missing; set ATTN_CHROMIUM"; exit 2; }
}

install_playwright_core() {
  # npm ci wipes and reinstalls node_modules: only when the lock file changed since the last install.
  local installed="$here/node_modules/.package-lock.json"
  if [ ! -f "$installed" ] || [ "$here/package-lock.json" -nt "$installed" ]; then
    say "installing playwright-core (npm ci)"
    (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
}

install_chromium
[ "${1:-}" = "--install-only" ] && exit 0
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || { say "needs Node 20 and npm (apt-get install nodejs npm)"; exit 2; }
install_playwright_core
ATTN_BUILD_DIR=$build_dir ./tutor --version >/dev/null   # builds attn when it is missing or stale

out="$build_dir/browser"
rm -rf "$out"
mkdir -p "$out"
node "$here/view_test.mjs" --attn "$build_dir/attn" --chromium "$chromium" --out "$out"
