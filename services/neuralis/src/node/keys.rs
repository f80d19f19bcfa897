//! The all-in-one server's local keys.
//!
//! A person on one machine gets a working setup with no key management: on first
//! start the server writes a random HS256 caller key to `<data_dir>/signing.key` and a
//! second, different one for service credentials to `<data_dir>/service.key` (both
//! mode 0600), and verifies with them; `neuralis token` mints caller tokens from the
//! first. Split mode never does this: it refuses to start without configured keys.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use neuralis_identity::{Claims, IdentityConfig, KeySource, Secret, ServiceIdentityConfig, mint};

/// The file holding the local caller key.
pub fn key_path(data_dir: &Path) -> PathBuf {
    data_dir.join("signing.key")
}

/// The file holding the local service key.
pub fn service_key_path(data_dir: &Path) -> PathBuf {
    data_dir.join("service.key")
}

/// Reads the local caller key, creating it on first use.
pub fn local_key(data_dir: &Path) -> Result<Secret> {
    local_secret(data_dir, &key_path(data_dir), "caller")
}

/// Reads the local service key, creating it on first use.
pub fn local_service_key(data_dir: &Path) -> Result<Secret> {
    local_secret(data_dir, &service_key_path(data_dir), "service")
}

fn local_secret(data_dir: &Path, path: &Path, what: &str) -> Result<Secret> {
    let path = path.to_owned();
    if let Ok(existing) = fs::read_to_string(&path) {
        let key = existing.trim();
        if !key.is_empty() {
            return Ok(Secret::new(key));
        }
    }
    fs::create_dir_all(data_dir)
        .with_context(|| format!("creating data directory {}", data_dir.display()))?;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| anyhow::anyhow!("no randomness for the signing key: {e}"))?;
    let key = hex::encode(bytes);
    write_private(&path, &key).with_context(|| format!("writing {}", path.display()))?;
    tracing::info!(path = %path.display(), key = what, "created a local signing key");
    Ok(Secret::new(key))
}

/// Reads the local key without creating it (for `neuralis token`).
pub fn existing_key(data_dir: &Path) -> Result<Secret> {
    let path = key_path(data_dir);
    let key = fs::read_to_string(&path).with_context(|| {
        format!(
            "no local signing key at {}: start `neuralis serve` once with this data directory",
            path.display()
        )
    })?;
    Ok(Secret::new(key.trim()))
}

/// Who a minted token speaks for.
#[derive(Debug, Clone, Default)]
pub struct TokenFor {
    pub subject: String,
    pub role: String,
    pub features: Vec<String>,
    pub agent: Option<String>,
    pub project: Option<String>,
    pub conversation: Option<String>,
    /// A platform-wide token (acts in every project).
    pub platform: bool,
    pub ttl_seconds: u64,
}

/// Mints an HS256 caller token for the default audience (the `token` command, the
/// demo and the tests all mint through here).
pub fn mint_token(secret: &Secret, who: TokenFor) -> Result<String> {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs();
    let claims = Claims {
        sub: who.subject,
        role: who.role,
        features: who.features,
        agent: who.agent,
        project: who.project,
        conversation: who.conversation,
        platform: who.platform,
        exp: now + who.ttl_seconds.max(1),
        nbf: None,
        aud: IdentityConfig::default().audience.into_iter().next(),
        iss: None,
    };
    Ok(mint(secret, &claims)?.expose().to_owned())
}

/// The identity settings of an all-in-one server whose configuration names no key.
pub fn with_local_key(mut identity: IdentityConfig, data_dir: &Path) -> Result<IdentityConfig> {
    if let KeySource::Hs256 { secret } = &identity.keys
        && secret.expose().is_empty()
    {
        identity.keys = KeySource::Hs256 {
            secret: local_key(data_dir)?,
        };
    }
    Ok(identity)
}

/// The service identity of an all-in-one server whose configuration names no key.
pub fn with_local_service_key(
    mut service: ServiceIdentityConfig,
    data_dir: &Path,
) -> Result<ServiceIdentityConfig> {
    if !service.has_keys() {
        service.keys = KeySource::Hs256 {
            secret: local_service_key(data_dir)?,
        };
    }
    Ok(service)
}

/// Whether the configuration names verification keys of its own.
pub fn has_configured_keys(identity: &IdentityConfig) -> bool {
    match &identity.keys {
        KeySource::Hs256 { secret } => !secret.expose().is_empty(),
        KeySource::PublicKeys { .. } | KeySource::JwksFile { .. } => true,
    }
}

fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    file.write_all(contents.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_local_key_is_created_once_and_reused() {
        let dir = tempfile::tempdir().unwrap();
        let first = local_key(dir.path()).unwrap();
        let second = local_key(dir.path()).unwrap();
        assert_eq!(first, second);
        assert_eq!(first.expose().len(), 64);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(key_path(dir.path()))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "only the owner may read the key");
        }
    }

    #[test]
    fn a_configured_key_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let configured = IdentityConfig {
            keys: KeySource::Hs256 {
                secret: Secret::new("x".repeat(40)),
            },
            ..IdentityConfig::default()
        };
        let kept = with_local_key(configured.clone(), dir.path()).unwrap();
        assert_eq!(kept, configured);
        assert!(!key_path(dir.path()).exists(), "no key file is written");
        assert!(has_configured_keys(&kept));
        assert!(!has_configured_keys(&IdentityConfig::default()));
    }

    #[test]
    fn the_local_service_key_is_its_own_and_differs_from_the_caller_key() {
        let dir = tempfile::tempdir().unwrap();
        let caller = local_key(dir.path()).unwrap();
        let service = with_local_service_key(ServiceIdentityConfig::default(), dir.path()).unwrap();
        let KeySource::Hs256 { secret } = &service.keys else {
            panic!("an hs256 local key")
        };
        assert_ne!(secret, &caller);
        assert_eq!(
            with_local_service_key(ServiceIdentityConfig::default(), dir.path())
                .unwrap()
                .keys,
            service.keys,
            "created once and reused"
        );
    }
}
