#!/usr/bin/env bash
# warden's main job, end to end on this machine: a small repository, a task share made from
# it, warden-guest running a command agent that commits a file, and the results received,
# checked and fetched the way the host does it. Installs (npm ci) when node_modules is missing
# or --install is given, and builds.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ "${1:-}" = "--install" ]; then
  npm ci --no-audit --no-fund
fi
npm run build >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The demo's own git ignores the machine's config, and has an identity even where none is set.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@localhost
export GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@localhost

echo "== a repository with one commit"
git init --quiet --initial-branch=main "$tmp/repo"
echo "# demo" > "$tmp/repo/README.md"
git -C "$tmp/repo" add README.md
git -C "$tmp/repo" commit --quiet -m "first commit"
base=$(git -C "$tmp/repo" rev-parse HEAD)
echo "base $base"

echo "== the task share: settings, prompt, bundle of the start commit"
mkdir "$tmp/share" "$tmp/workspace" "$tmp/results"
git -C "$tmp/repo" bundle create --quiet "$tmp/share/input.bundle" HEAD main
# The agent reads the prompt on stdin, writes it into a file, commits it, and ends with a
# JSON line that becomes the result's agentResult.
cat >"$tmp/share/task.json" <<'JSON'
{
  "agent": "command",
  "command": ["sh", "-c", "cat > HELLO.md && git add HELLO.md && git commit -qm 'Say hello' && echo '{\"type\":\"result\",\"summary\":\"wrote HELLO.md\"}'"],
  "timeoutSeconds": 60,
  "gitName": "Demo Agent",
  "gitEmail": "agent@example.com"
}
JSON
printf 'Hello from the prompt.\n' >"$tmp/share/prompt.md"

echo "== warden-guest (its progress on stderr, the archive on stdout)"
node dist/guest/main.js --share "$tmp/share" --workspace "$tmp/workspace" --scratch "$tmp/scratch" |
  node scripts/takeResults.js "$tmp/results" "$tmp/repo" "$base" demo

echo "== the branch in the repository"
git -C "$tmp/repo" show --format='%h %s' --stat demo
