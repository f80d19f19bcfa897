#!/usr/bin/env bash
# Installs buf (the npm package @bufbuild/buf, pinned) into target/tools/npm once, then
# runs it with the arguments given: `tests/support/buf.sh lint` checks proto/ against
# buf.yaml (STANDARD and COMMENTS).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
prefix="$root/target/tools/npm"
version="1.75.0"
buf="$prefix/node_modules/.bin/buf"
if [ ! -x "$buf" ] || [ "$("$buf" --version 2>/dev/null)" != "$version" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "buf.sh: npm is not installed; install Node.js (npm) to run buf lint, or put buf $version on PATH as $buf" >&2
    exit 1
  fi
  if ! npm install --silent --no-audit --no-fund --prefix "$prefix" "@bufbuild/buf@$version" >&2; then
    echo "buf.sh: cannot install @bufbuild/buf@$version from the npm registry (offline?); buf lint needs it" >&2
    exit 1
  fi
fi
cd "$root"
exec "$buf" "$@"
