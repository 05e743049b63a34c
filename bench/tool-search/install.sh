#!/usr/bin/env bash
# Installs every package in packages.json into its own folder under a scratch directory (default
# /tmp/mcp-corpus/pkgs), outside the repo, so collect.ts can start each server over stdio. One folder
# per package: their dependencies never meet. A package pinned to a version in packages.json (`version`)
# is pinned because a later release no longer declares a licence we may redistribute; `ignoreScripts`
# skips install scripts that only build an optional native module (minutes of C++ for nothing here).
# Browser downloads are skipped (only tools/list is needed); entries with `skip` are not installed.
set -u
out="${1:-/tmp/mcp-corpus/pkgs}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
export PUPPETEER_SKIP_DOWNLOAD=1 PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
node -e 'for (const s of require(process.argv[1]).servers) if (!s.skip) console.log([s.server, s.package, s.package + (s.version ? "@" + s.version : ""), s.ignoreScripts ? "--ignore-scripts" : ""].join(" "))' "$here/packages.json" |
  xargs -P "${PARALLEL:-12}" -L 1 bash -c '
    dir="$0/$1"
    # .installed marks a finished install; a folder without it is (re)installed from scratch.
    [ -f "$dir/.installed" ] && exit 0
    # npm installs into the nearest folder with a package.json: never run it anywhere but "$dir".
    rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" && echo "{}" > package.json || { echo "FAIL $1 (could not prepare $dir)"; exit 0; }
    if timeout 400 npm install --no-audit --no-fund --loglevel=error $4 "$3" > install.log 2>&1; then
      touch .installed && echo "ok   $1"
    else echo "FAIL $1 (see $dir/install.log)"; fi
  ' "$out"
