#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what it needs, builds, lints,
# then runs every test with Node's own test runner, ending with its summary.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests run for real (git, bubblewrap, zsh for its completion, chromium for
# the dashboard's page, openssl for the certificate of an https MCP server, nats-server for the
# fleet's store, which its tests start on free ports of their own, iproute2 for the network
# namespaces in which the fleet's fault tests cut a process off).
# Only root can install; anyone else must have them already, and the tests that need them say so.
need=()
command -v git >/dev/null || need+=(git)
command -v bwrap >/dev/null || need+=(bubblewrap)
command -v flock >/dev/null || need+=(util-linux)
command -v zsh >/dev/null || need+=(zsh)
command -v chromium >/dev/null || need+=(chromium)
command -v openssl >/dev/null || need+=(openssl)
command -v nats-server >/dev/null || need+=(nats-server)
command -v ip >/dev/null || need+=(iproute2)
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "warning: missing ${need[*]}; tests that need them will skip" >&2
  fi
fi

npm ci --no-audit --no-fund
npm run build
npm run typecheck
npm run lint

mapfile -t files < <(find test -name '*.test.ts' | sort)
if [ "${#files[@]}" -eq 0 ]; then
  echo "no test files found" >&2
  exit 1
fi
# With CI=true a skipped or todo test fails the run (see runTests.sh).
exec ./scripts/runTests.sh "${files[@]}"
