// A black-box client of the Neuralis gRPC API in TypeScript (issue 28 item 5), beside
// the Python one: @grpc/grpc-js with @grpc/proto-loader reading proto/ as published.
// Health, a source created and synced, packages listed with a minted member token, and
// the machine-readable `ErrorInfo` reason of an unauthenticated call.
//
// Run by tests/tests/typescript_client.rs through tests/support/node-tools.sh, with
// NEURALIS_ADDR (host:port), NEURALIS_PROJECT, NEURALIS_ADMIN_TOKEN,
// NEURALIS_MEMBER_TOKEN (a member acting as agent NEURALIS_AGENT) and
// NEURALIS_SOURCE_ROOT (a directory to sync).

import * as path from "path";
import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";
import * as protobuf from "protobufjs";

const env = process.env as Record<string, string>;
const repo = path.resolve(__dirname, env.NEURALIS_REPO ?? "../../..");

function check(condition: boolean, what: string): void {
  if (!condition) {
    throw new Error(`client_test: FAILED: ${what}`);
  }
  console.log(`ok: ${what}`);
}

function bearer(token: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  return metadata;
}

type Client = grpc.Client & Record<string, Function>;

/** A unary call as a promise. */
function unary(client: Client, method: string, request: object, metadata = new grpc.Metadata()): Promise<any> {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + 30_000);
    client[method](request, metadata, { deadline }, (error: grpc.ServiceError | null, answer: any) =>
      error ? reject(error) : resolve(answer),
    );
  });
}

/** Every message of a server stream. */
function streamed(client: Client, method: string, request: object, metadata: grpc.Metadata): Promise<any[]> {
  return new Promise((resolve, reject) => {
    const messages: any[] = [];
    const call = client[method](request, metadata, { deadline: new Date(Date.now() + 120_000) });
    call.on("data", (message: any) => messages.push(message));
    call.on("error", reject);
    call.on("end", () => resolve(messages));
  });
}

/** google.rpc.Status and ErrorInfo, to read the `grpc-status-details-bin` trailer. */
const rpc = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        protobuf: { nested: { Any: { fields: { type_url: { type: "string", id: 1 }, value: { type: "bytes", id: 2 } } } } },
        rpc: {
          nested: {
            Status: {
              fields: {
                code: { type: "int32", id: 1 },
                message: { type: "string", id: 2 },
                details: { rule: "repeated", type: "google.protobuf.Any", id: 3 },
              },
            },
            ErrorInfo: {
              fields: {
                reason: { type: "string", id: 1 },
                domain: { type: "string", id: 2 },
              },
            },
          },
        },
      },
    },
  },
});

function errorInfos(error: grpc.ServiceError): { reason: string; domain: string }[] {
  const [bytes] = error.metadata.get("grpc-status-details-bin");
  check(bytes instanceof Buffer, "the refusal carries google.rpc.Status details");
  const status: any = rpc.lookupType("google.rpc.Status").decode(bytes as Buffer);
  const info = rpc.lookupType("google.rpc.ErrorInfo");
  return status.details
    .filter((any: any) => any.type_url === "type.googleapis.com/google.rpc.ErrorInfo")
    .map((any: any) => info.decode(any.value) as any)
    .map((i: any) => ({ reason: i.reason, domain: i.domain }));
}

async function main(): Promise<void> {
  const project = env.NEURALIS_PROJECT;
  const definition = loader.loadSync(
    [
      "neuralis/common/v1/types.proto",
      "neuralis/sync/v1/sources.proto",
      "neuralis/policy/v1/policy.proto",
      "neuralis/discovery/v1/discovery.proto",
      "health.proto",
    ],
    { includeDirs: [path.join(repo, "proto"), path.join(repo, "tests/typescript")], keepCase: true, enums: String, longs: Number, defaults: true },
  );
  const api = grpc.loadPackageDefinition(definition) as any;
  const credentials = grpc.credentials.createInsecure();
  const address = env.NEURALIS_ADDR;
  const health: Client = new api.grpc.health.v1.Health(address, credentials);
  const sources: Client = new api.neuralis.sync.v1.SourceService(address, credentials);
  const policies: Client = new api.neuralis.policy.v1.PolicyService(address, credentials);
  const discovery: Client = new api.neuralis.discovery.v1.DiscoveryService(address, credentials);

  const answer = await unary(health, "Check", { service: "" });
  check(answer.status === "SERVING", "health answers SERVING");

  const admin = bearer(env.NEURALIS_ADMIN_TOKEN);
  const spec = {
    project,
    slug: "typescript",
    kind: "SOURCE_KIND_LOCAL",
    root: env.NEURALIS_SOURCE_ROOT,
    scope: "SOURCE_SCOPE_PROJECT",
    trigger: "manual",
  };
  const created = await unary(sources, "CreateSource", { source: spec }, admin);
  check(created.source.id.startsWith(`${project}/typescript.`), "CreateSource assigns a source id");
  const readAll = { default_capabilities: { read: true } };
  await unary(policies, "PutSourcePolicy", { source_id: created.source.id, policy: readAll }, admin);
  const updates = await streamed(sources, "SyncSource", { project, slug: "typescript" }, admin);
  const indexed = Math.max(0, ...updates.map((u) => (u.progress ? u.progress.files_indexed : 0)));
  check(indexed > 0, `SyncSource streams progress to the end (${indexed} files indexed)`);

  const scope = { project_id: project, agent_id: env.NEURALIS_AGENT };
  const listing = await unary(discovery, "ListPackages", { scope }, bearer(env.NEURALIS_MEMBER_TOKEN));
  const names: string[] = listing.packages.map((p: any) => p.name);
  check(names.length > 0 && listing.packages.some((p: any) => p.files.length > 0), `ListPackages answers the member ${names}`);

  try {
    await unary(sources, "ListSources", { project });
    check(false, "ListSources without a token is refused");
  } catch (caught) {
    const error = caught as grpc.ServiceError;
    check(error.code === grpc.status.UNAUTHENTICATED, "ListSources without a token is UNAUTHENTICATED");
    const infos = errorInfos(error);
    check(
      JSON.stringify(infos) === JSON.stringify([{ reason: "UNAUTHENTICATED", domain: "neuralis.dev" }]),
      `its ErrorInfo reason is UNAUTHENTICATED in domain neuralis.dev (${JSON.stringify(infos)})`,
    );
  }
  for (const client of [health, sources, policies, discovery]) {
    client.close();
  }
  console.log("client_test: all checks passed");
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
