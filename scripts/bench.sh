#!/usr/bin/env bash
# Every benchmark in bench/, each printing ratios against a baseline measured in the same run.
# Pass --quick for smaller inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build >/dev/null
for bench in bench/*.ts; do
  echo "== ${bench}"
  node --import tsx "${bench}" "$@"
done
