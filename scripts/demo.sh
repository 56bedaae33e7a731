#!/usr/bin/env bash
# warden's main job on a fresh machine: install what it needs, build, then run one agent task
# end to end in a bubblewrap sandbox on a small repository and bring its verified branch home.
# The agent here is a shell command, so the demo needs no API key; `--agent claude` runs
# Claude Code the same way.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v git >/dev/null || need+=(git)
command -v bwrap >/dev/null || need+=(bubblewrap)
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "demo: please install ${need[*]} (for example: sudo apt-get install ${need[*]})" >&2
    exit 1
  fi
fi
if [ ! -d node_modules ] || [ "${1:-}" = "--install" ]; then
  npm ci --no-audit --no-fund
fi
# The build's output is shown only when it fails, and then in full.
if ! build_output=$(npm run build 2>&1); then
  printf '%s\n' "$build_output" >&2
  echo "demo: the build failed (its output is above)" >&2
  exit 1
fi

# The repository and the data directory stay after the demo, so its task can be looked at again.
tmp=$(mktemp -d -t warden-demo.XXXXXX)
export WARDEN_DATA_DIR="$tmp/data"
warden() { node dist/cli/warden.cjs "$@"; }
# The demo's own git ignores the machine's config and has an identity even where none is set.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@localhost
export GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@localhost

echo "== a repository with one commit"
git init --quiet --initial-branch=main "$tmp/repo"
echo "# demo" >"$tmp/repo/README.md"
git -C "$tmp/repo" add README.md
git -C "$tmp/repo" commit --quiet -m "first commit"

echo "== warden run: the agent writes the prompt into HELLO.md and commits it, in bubblewrap"
id=$(warden run --repo "$tmp/repo" --prompt "Hello from the prompt." --json --agent command -- \
  sh -c 'cat > HELLO.md && git add HELLO.md && git commit -qm "Say hello"' |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const t=JSON.parse(s);if(!t.id){console.error(s);process.exit(1)}console.error(`state: ${t.state}`);console.log(t.id)})')

echo "== warden show $id"
warden show "$id"
echo "== warden diff $id"
warden diff "$id"
echo "== warden fetch $id"
warden fetch "$id"
git -C "$tmp/repo" log --format='%h %s (%an)' "warden/$id"

if type -P warden >/dev/null; then
  cli=warden
else
  cli="node $PWD/dist/cli/warden.cjs"
fi
echo
echo "== the task is kept in $WARDEN_DATA_DIR; look at it again with:"
echo "  $cli --data-dir $WARDEN_DATA_DIR ls"
echo "  $cli --data-dir $WARDEN_DATA_DIR show $id"
echo "  $cli --data-dir $WARDEN_DATA_DIR diff $id"
if [ "$cli" != warden ]; then
  echo "(\`npm install -g .\` here makes the \`warden\` command; see the README)"
fi
echo "remove it all with: rm -rf $tmp"
