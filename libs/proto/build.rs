//! Compiles every `proto/neuralis/**/*.proto` (the service packages, the services-only
//! `sync/internal/v1` and the shared `common/v1`) with protox (pure Rust, no
//! system protoc) and writes the descriptor set that server reflection serves.
//!
//! Each service's package that exists gets a `has_<service>` cfg so `lib.rs` can
//! include exactly the generated modules there are.

use std::path::{Path, PathBuf};

use prost::Message;

const SERVICES: &[&str] = &["common", "sync", "policy", "discovery"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Read at run time: a build script compiled for one checkout may run for another.
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../../proto");
    // tonic-prost-build does not emit rerun-if-changed itself: watch the folder.
    println!("cargo:rerun-if-changed={}", root.display());

    let files = proto_files(&root)?;
    for service in SERVICES {
        println!("cargo::rustc-check-cfg=cfg(has_{service})");
        let dir = root.join("neuralis").join(service);
        if files.iter().any(|f| f.starts_with(&dir)) {
            println!("cargo::rustc-cfg=has_{service}");
        }
    }
    if files.is_empty() {
        return Ok(());
    }
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
    }

    let descriptors = protox::compile(&files, [&root])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("neuralis_descriptor.bin"),
        descriptors.encode_to_vec(),
    )?;
    tonic_prost_build::configure()
        // Bad wire data is the caller's INVALID_ARGUMENT, not our INTERNAL (src/codec.rs).
        .codec_path("crate::codec::NeuralisCodec")
        // Written by hand so a server can send packages it encoded earlier
        // (src/discovery/v1/list_packages.rs); the same message on the wire.
        .extern_path(
            ".neuralis.discovery.v1.ListPackagesResponse",
            "crate::discovery::v1::ListPackagesResponse",
        )
        .build_server(true)
        .build_client(true)
        .compile_fds(descriptors)?;
    Ok(())
}

/// All `.proto` files below `root`, sorted so the build is deterministic.
fn proto_files(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        if !dir.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                println!("cargo:rerun-if-changed={}", path.display());
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "proto") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}
