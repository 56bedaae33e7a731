#!/usr/bin/env bash
# Runs the given test files with Node's own test runner, the spec reporter on stdout, then lists
# every skipped or todo test. With CI=true any such test fails the run: CI has everything the
# suite needs, so a test that did not run there proved nothing and must not end green.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -eq 0 ]; then
  echo "no test files given" >&2
  exit 1
fi

skips="$(mktemp -t warden-skips.XXXXXX)"
trap 'rm -f "$skips"' EXIT

# Source maps make the skip list's file:line point at the TypeScript, as failures' stacks do.
status=0
node --enable-source-maps --import tsx --test \
  --test-concurrency="${WARDEN_TEST_CONCURRENCY:-3}" --test-timeout=600000 \
  --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=./test/support/skipCounter.mjs --test-reporter-destination="$skips" \
  "$@" || status=$?

if [ -s "$skips" ]; then
  echo
  echo "skipped or todo tests:"
  cat "$skips"
  if [ "${CI:-}" = "true" ]; then
    echo "CI=true: a skipped or todo test fails the run; each must run here" >&2
    if [ "$status" -eq 0 ]; then status=1; fi
  fi
fi
exit "$status"
