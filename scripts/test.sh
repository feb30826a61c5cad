#!/usr/bin/env bash
# Runs every test. Installs what the suite needs when it is missing: npm dependencies
# (with the pinned Deno), Debian's chromium for the browser tests and golang-go for the Go
# webhook example (tests/docs/webhook_examples_test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
export NO_COLOR=1
if [ ! -x node_modules/deno/deno ]; then
  npm ci --no-audit --no-fund
fi
# `deno task` would run an npm bin named deno as a script: keep only the real binary.
rm -f node_modules/.bin/deno
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is missing: install Debian's chromium (sudo apt-get install chromium) for the browser tests" >&2
  fi
fi
if ! command -v go >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
  else
    echo "go is missing: install Debian's golang-go (sudo apt-get install golang-go) for the Go webhook example" >&2
  fi
fi
exec node_modules/deno/deno task test "$@"
