//! The closed list of RPC methods a Neuralis process can serve or call: every method
//! of the compiled contract, health and reflection. Spans, log lines and metric labels
//! name a method only through this list, so a caller's request path (which it chooses
//! freely) never reaches them: a path outside the list is `unknown`.

use std::collections::HashMap;
use std::sync::LazyLock;

use prost::Message;

/// One RPC method, named from the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rpc {
    /// The fully qualified service, e.g. `neuralis.discovery.v1.DiscoveryService`.
    pub service: &'static str,
    /// The method, e.g. `ListPackages`.
    pub method: &'static str,
    /// `service/method`: the span name.
    pub full: &'static str,
    /// Whether the server answers with a stream (it is ended on drain).
    pub server_streaming: bool,
}

/// A path outside the contract.
pub const UNKNOWN: Rpc = Rpc {
    service: "unknown",
    method: "unknown",
    full: "unknown",
    server_streaming: false,
};

/// Methods not in our descriptor set: (service, method, server streaming).
const STANDARD: [(&str, &str, bool); 5] = [
    ("grpc.health.v1.Health", "Check", false),
    ("grpc.health.v1.Health", "Watch", true),
    ("grpc.health.v1.Health", "List", false),
    (
        "grpc.reflection.v1.ServerReflection",
        "ServerReflectionInfo",
        true,
    ),
    (
        "grpc.reflection.v1alpha.ServerReflection",
        "ServerReflectionInfo",
        true,
    ),
];

static METHODS: LazyLock<HashMap<String, Rpc>> = LazyLock::new(|| {
    let mut found: Vec<(String, String, bool)> = STANDARD
        .iter()
        .map(|(s, m, streams)| (s.to_string(), m.to_string(), *streams))
        .collect();
    if let Ok(set) = prost_types::FileDescriptorSet::decode(neuralis_proto::FILE_DESCRIPTOR_SET) {
        for file in set.file {
            let package = file.package.unwrap_or_default();
            for service in file.service {
                let name = format!("{package}.{}", service.name.unwrap_or_default());
                for method in service.method {
                    found.push((
                        name.clone(),
                        method.name.unwrap_or_default(),
                        method.server_streaming.unwrap_or(false),
                    ));
                }
            }
        }
    }
    // Leaked once: a bounded list (a few dozen methods) that lives as long as the
    // process, so label values can be `&'static str`.
    found
        .into_iter()
        .map(|(service, method, server_streaming)| {
            let full: &'static str = format!("{service}/{method}").leak();
            let (service, method) = full.split_once('/').unwrap_or((full, full));
            (
                format!("/{full}"),
                Rpc {
                    service,
                    method,
                    full,
                    server_streaming,
                },
            )
        })
        .collect()
});

/// The method a request path names, or [`UNKNOWN`].
pub fn rpc_of(path: &str) -> Rpc {
    METHODS.get(path).copied().unwrap_or(UNKNOWN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_methods_are_named_and_anything_else_is_unknown() {
        let list = rpc_of("/neuralis.discovery.v1.DiscoveryService/ListPackages");
        assert_eq!(list.service, "neuralis.discovery.v1.DiscoveryService");
        assert_eq!(list.method, "ListPackages");
        assert_eq!(
            list.full,
            "neuralis.discovery.v1.DiscoveryService/ListPackages"
        );
        assert!(!list.server_streaming);
        assert!(rpc_of("/neuralis.sync.v1.SourceService/SyncSource").server_streaming);
        assert!(rpc_of("/grpc.health.v1.Health/Watch").server_streaming);
        for path in [
            "/etc/passwd",
            "/neuralis.discovery.v1.DiscoveryService/eyJhbGciOi",
            "/neuralis.discovery.v1.DiscoveryService/ListPackages/extra",
            "",
        ] {
            assert_eq!(rpc_of(path), UNKNOWN, "{path}");
        }
    }
}
