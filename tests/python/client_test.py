"""A black-box client of the Neuralis gRPC API in Python (issue 12, "polyglot API").

Stubs are generated from proto/ at test time (grpcio-tools, into a temporary directory),
so the test proves the contract as published works from another language: health, the
services listed by reflection, a source created and synced, packages listed with a
caller token, and the machine-readable reason of an unauthenticated call.

Run by tests/tests/python_client.rs through tests/support/python-tools.sh, with:
NEURALIS_ADDR (host:port), NEURALIS_PROJECT, NEURALIS_ADMIN_TOKEN, NEURALIS_MEMBER_TOKEN
(a member acting as agent NEURALIS_AGENT) and NEURALIS_SOURCE_ROOT (a directory to sync).
"""

import importlib
import os
import pathlib
import sys
import tempfile

import grpc
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status
from grpc_tools import protoc

REPO = pathlib.Path(__file__).resolve().parents[2]
# The public contract: the three service packages and the shared types they import (the
# services-only feed, neuralis/sync/internal/, is no part of it).
PROTOS = [
    "neuralis/common/v1/types.proto",
    "neuralis/sync/v1/sources.proto",
    "neuralis/policy/v1/policy.proto",
    "neuralis/discovery/v1/discovery.proto",
]


def generate(out: str):
    """Generates the Python stubs of proto/ into `out` and imports them."""
    include = pathlib.Path(protoc.__file__).parent / "_proto"
    args = ["protoc", f"-I{REPO / 'proto'}", f"-I{include}", f"--python_out={out}", f"--grpc_python_out={out}"]
    if protoc.main(args + PROTOS) != 0:
        raise SystemExit("client_test: protoc could not compile proto/")
    sys.path.insert(0, out)
    modules = {
        "common": "neuralis.common.v1.types_pb2",
        "sync": "neuralis.sync.v1.sources_pb2",
        "sync_grpc": "neuralis.sync.v1.sources_pb2_grpc",
        "policy": "neuralis.policy.v1.policy_pb2",
        "policy_grpc": "neuralis.policy.v1.policy_pb2_grpc",
        "discovery": "neuralis.discovery.v1.discovery_pb2",
        "discovery_grpc": "neuralis.discovery.v1.discovery_pb2_grpc",
    }
    return {key: importlib.import_module(module) for key, module in modules.items()}


def bearer(token: str):
    return [("authorization", f"Bearer {token}")]


def check(condition: bool, what: str):
    if not condition:
        raise SystemExit(f"client_test: FAILED: {what}")
    print(f"ok: {what}")


def main():
    env = os.environ
    project, agent = env["NEURALIS_PROJECT"], env["NEURALIS_AGENT"]
    admin, member = env["NEURALIS_ADMIN_TOKEN"], env["NEURALIS_MEMBER_TOKEN"]
    with tempfile.TemporaryDirectory() as out:
        pb = generate(out)
        channel = grpc.insecure_channel(env["NEURALIS_ADDR"])
        grpc.channel_ready_future(channel).result(timeout=30)

        health = health_pb2_grpc.HealthStub(channel)
        answer = health.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
        check(answer.status == health_pb2.HealthCheckResponse.SERVING, "health answers SERVING")

        reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        listed = next(iter(reflection.ServerReflectionInfo(iter([request]), timeout=10)))
        services = {s.name for s in listed.list_services_response.service}
        wanted = {
            "neuralis.sync.v1.SourceService",
            "neuralis.policy.v1.PolicyService",
            "neuralis.discovery.v1.DiscoveryService",
        }
        check(wanted <= services, f"reflection lists {sorted(wanted)}")
        internal = sorted(s for s in services if ".internal." in s)
        check(not internal, f"reflection lists no services-only service on the public port: {internal}")

        sources = pb["sync_grpc"].SourceServiceStub(channel)
        spec = pb["sync"].SourceSpec(
            project=project,
            slug="python",
            kind=pb["sync"].SOURCE_KIND_LOCAL,
            root=env["NEURALIS_SOURCE_ROOT"],
            scope=pb["common"].SOURCE_SCOPE_PROJECT,
            trigger="manual",
        )
        created = sources.CreateSource(pb["sync"].CreateSourceRequest(source=spec), metadata=bearer(admin), timeout=30)
        check(created.source.id.startswith(f"{project}/python."), "CreateSource assigns a source id")

        policies = pb["policy_grpc"].PolicyServiceStub(channel)
        read_all = pb["policy"].UriPolicy(default_capabilities=pb["policy"].Capabilities(read=True))
        put = pb["policy"].PutSourcePolicyRequest(source_id=created.source.id, policy=read_all)
        policies.PutSourcePolicy(put, metadata=bearer(admin), timeout=30)

        run = pb["sync"].SyncSourceRequest(project=project, slug="python")
        updates = list(sources.SyncSource(run, metadata=bearer(admin), timeout=120))
        indexed = max((u.progress.files_indexed for u in updates), default=0)
        check(indexed > 0, f"SyncSource streams progress to the end ({indexed} files indexed)")

        packages = pb["discovery_grpc"].DiscoveryServiceStub(channel)
        scope = pb["discovery"].Scope(project_id=project, agent_id=agent)
        listing = packages.ListPackages(pb["discovery"].ListPackagesRequest(scope=scope), metadata=bearer(member), timeout=30)
        names = [p.name for p in listing.packages]
        check(len(names) > 0 and any(p.files for p in listing.packages), f"ListPackages answers the member {names}")

        try:
            sources.ListSources(pb["sync"].ListSourcesRequest(project=project), timeout=30)
            check(False, "ListSources without a token is refused")
        except grpc.RpcError as error:
            check(error.code() == grpc.StatusCode.UNAUTHENTICATED, "ListSources without a token is UNAUTHENTICATED")
            status = rpc_status.from_call(error)
            check(status is not None, "the refusal carries google.rpc.Status details")
            infos = []
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    infos.append(info)
            check(
                [(i.reason, i.domain) for i in infos] == [("UNAUTHENTICATED", "neuralis.dev")],
                "its ErrorInfo reason is UNAUTHENTICATED in domain neuralis.dev",
            )
    print("client_test: all checks passed")


if __name__ == "__main__":
    main()
