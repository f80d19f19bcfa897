//! The gRPC contract of the three Neuralis services, generated from `proto/` at build
//! time. One module per package (`neuralis.<service>.v1`, `neuralis.sync.internal.v1`,
//! `neuralis.common.v1`), nested as the packages are, so the generated cross-package
//! paths (`super::super::common::v1::SourceScope`) resolve.
#![forbid(unsafe_code)]
#![allow(clippy::doc_lazy_continuation, clippy::large_enum_variant)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod bounds;
pub mod codec;
pub mod details;
pub mod page;

/// `neuralis.common.v1`: the types more than one service package speaks (`SourceScope`,
/// `Category`, `PackageOrigin`), defined once.
#[cfg(has_common)]
pub mod common {
    pub mod v1 {
        tonic::include_proto!("neuralis.common.v1");
    }
}

/// `neuralis.sync.v1`: the administration of sources (`SourceService`).
#[cfg(has_sync)]
pub mod sync {
    pub mod v1 {
        tonic::include_proto!("neuralis.sync.v1");
    }

    /// `neuralis.sync.internal.v1`: the index feed (`IndexFeedService`), for services
    /// only and no public contract.
    pub mod internal {
        pub mod v1 {
            tonic::include_proto!("neuralis.sync.internal.v1");
        }
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

        pub mod list_packages;
        pub use list_packages::ListPackagesResponse;
    }
}

/// The encoded `FileDescriptorSet` of every service package, for server reflection.
#[cfg(any(has_sync, has_policy, has_discovery))]
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/neuralis_descriptor.bin"));

/// Empty when no service contract has been written yet.
#[cfg(not(any(has_sync, has_policy, has_discovery)))]
pub const FILE_DESCRIPTOR_SET: &[u8] = &[];
