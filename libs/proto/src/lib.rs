//! The gRPC contract of the three Neuralis services, generated from `proto/` at build
//! time. One module per service package (`neuralis.<service>.v1`).
#![forbid(unsafe_code)]
#![allow(clippy::doc_lazy_continuation, clippy::large_enum_variant)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod bounds;
pub mod codec;
pub mod details;
pub mod page;

/// `neuralis.sync.v1`: the administration of sources (`SourceService`) and the index
/// feed (`IndexFeedService`, services only).
#[cfg(has_sync)]
pub mod sync {
    pub mod v1 {
        tonic::include_proto!("neuralis.sync.v1");
    }
}

/// `neuralis.policy.v1`: the access store and evaluation.
#[cfg(has_policy)]
pub mod policy {
    pub mod v1 {
        tonic::include_proto!("neuralis.policy.v1");
    }
}

/// `neuralis.discovery.v1`: packages, activation, hydration, the tool catalog.
#[cfg(has_discovery)]
pub mod discovery {
    pub mod v1 {
        tonic::include_proto!("neuralis.discovery.v1");
    }
}

/// The encoded `FileDescriptorSet` of every service package, for server reflection.
#[cfg(any(has_sync, has_policy, has_discovery))]
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/neuralis_descriptor.bin"));

/// Empty when no service contract has been written yet.
#[cfg(not(any(has_sync, has_policy, has_discovery)))]
pub const FILE_DESCRIPTOR_SET: &[u8] = &[];
