#!/usr/bin/env bash
# Installs the TypeScript client test's packages (pinned) into target/tools/node once,
# compiles tests/typescript/client_test.ts there with tsc, then runs the command given
# with those packages on NODE_PATH (`node-tools.sh node target/tools/node/out/client_test.js`).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
prefix="$root/target/tools/node"
packages=(@grpc/grpc-js@1.14.7 @grpc/proto-loader@0.8.1 protobufjs@7.6.6 typescript@5.9.3 @types/node@20.19.25)
stamp="$prefix/.installed-$(echo "${packages[*]}" | cksum | cut -d' ' -f1)"
if [ ! -f "$stamp" ]; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "node-tools: npm is not installed; install Node.js (npm) for the TypeScript client test" >&2
    exit 1
  fi
  mkdir -p "$prefix"
  if ! npm install --silent --no-audit --no-fund --prefix "$prefix" "${packages[@]}" >&2; then
    echo "node-tools: cannot install ${packages[*]} from the npm registry (offline?); the TypeScript client test needs them" >&2
    exit 1
  fi
  touch "$stamp"
fi
export NODE_PATH="$prefix/node_modules"
"$prefix/node_modules/.bin/tsc" -p "$root/tests/typescript/tsconfig.json" --outDir "$prefix/out" --baseUrl "$prefix/node_modules" --typeRoots "$prefix/node_modules/@types"
cd "$root"
exec "$@"
