//! The directories this process keeps: its data directory (embedded stores, local
//! keys), the folders of the embedded index and policy store, the folder of every
//! key or certificate file it reads, and the folder of its configuration file (which
//! may hold a key or a password inline). Sync refuses a source root that holds or lies
//! inside one of them, and its connectors never enter them (DESIGN.md section 5).

use std::path::{Path, PathBuf};

use neuralis_identity::{KeySource, PublicKey};
use neuralis_sync::config::IndexStoreConfig;

use super::settings::NodeSettings;

/// Every directory `settings` keeps something in, each once.
pub(crate) fn kept_dirs(settings: &NodeSettings) -> Vec<PathBuf> {
    let mut files: Vec<&Path> = Vec::new();
    files.extend(key_files(&settings.identity.keys));
    files.extend(key_files(&settings.service_identity.keys));
    files.extend(settings.service_identity.signing_key.as_deref());
    files.extend(settings.config_file.as_deref());
    let tls = &settings.tls;
    let peers = &settings.peers;
    for file in [
        &tls.cert_file,
        &tls.key_file,
        &tls.client_ca_file,
        &peers.ca_file,
        &peers.cert_file,
        &peers.key_file,
    ] {
        files.extend(file.as_deref());
    }
    // The default store paths follow `data_dir` (see `services`): only others add a folder.
    if let IndexStoreConfig::Embedded { path, .. } = &settings.sync.index
        && path != Path::new(".neuralis/index.db")
    {
        files.push(path);
    }
    if let neuralis_access_store::StoreConfig::Embedded { path } = &settings.policy.store
        && path != Path::new(".neuralis/policy.db")
    {
        files.push(path);
    }
    let mut dirs = vec![settings.data_dir.clone()];
    dirs.extend(files.into_iter().map(folder_of));
    dirs.sort();
    dirs.dedup();
    dirs
}

fn key_files(keys: &KeySource) -> Vec<&Path> {
    match keys {
        KeySource::Hs256 { .. } => Vec::new(),
        KeySource::PublicKeys { keys } => keys
            .iter()
            .map(|PublicKey { pem_file, .. }| pem_file.as_path())
            .collect(),
        KeySource::JwksFile { path } => vec![path.as_path()],
    }
}

/// The folder a file lives in (`.` for a bare file name).
fn folder_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_directory_every_key_folder_and_the_configuration_folder_are_kept() {
        let mut settings = NodeSettings {
            data_dir: PathBuf::from("/srv/neuralis"),
            ..NodeSettings::default()
        };
        settings.identity.keys = KeySource::JwksFile {
            path: PathBuf::from("/etc-keys/callers/jwks.json"),
        };
        settings.service_identity.signing_key = Some(PathBuf::from("/keys/service/key.pem"));
        settings.tls.key_file = Some(PathBuf::from("/tls/server.key"));
        settings.config_file = Some(PathBuf::from("/etc/neuralis-conf/neuralis.yaml"));
        let kept = kept_dirs(&settings);
        for dir in [
            "/srv/neuralis",
            "/etc-keys/callers",
            "/keys/service",
            "/tls",
            "/etc/neuralis-conf",
        ] {
            assert!(kept.contains(&PathBuf::from(dir)), "{dir} in {kept:?}");
        }
    }
}
