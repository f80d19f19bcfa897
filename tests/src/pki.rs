//! Certificates made at test time: a CA, and leaf certificates it signs for servers
//! and clients (both usages, as a pod's certificate is used for serving and for
//! calling its peers). Nothing is checked in; every run has its own keys.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

/// The files of one test PKI, written under a directory.
#[derive(Debug, Clone)]
pub struct Pki {
    /// The CA certificate (PEM).
    pub ca: PathBuf,
    /// A certificate for `localhost` and `127.0.0.1` plus the names given, with its key.
    pub cert: PathBuf,
    pub key: PathBuf,
    /// A certificate from another CA, which the servers must refuse.
    pub stranger_cert: PathBuf,
    pub stranger_key: PathBuf,
}

impl Pki {
    /// Makes a CA and its leaf certificate valid for `names` (and the loopback names),
    /// writing `ca.crt`, `tls.crt`, `tls.key` (the names of a `kubernetes.io/tls`
    /// Secret from cert-manager) and a stranger's pair into `dir`.
    pub fn create(dir: &Path, names: &[&str]) -> Result<Self> {
        std::fs::create_dir_all(dir)?;
        let ca = authority("neuralis test ca")?;
        let mut all: Vec<String> = vec!["localhost".into(), "127.0.0.1".into()];
        all.extend(names.iter().map(|name| name.to_string()));
        let (cert, key) = leaf(&ca, all.clone())?;
        let stranger_ca = authority("someone else's ca")?;
        let (stranger_cert, stranger_key) = leaf(&stranger_ca, all)?;
        let write = |name: &str, text: &str| -> Result<PathBuf> {
            let path = dir.join(name);
            std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
            Ok(path)
        };
        Ok(Self {
            ca: write("ca.crt", &ca.pem())?,
            cert: write("tls.crt", &cert)?,
            key: write("tls.key", &key)?,
            stranger_cert: write("stranger.crt", &stranger_cert)?,
            stranger_key: write("stranger.key", &stranger_key)?,
        })
    }
}

fn authority(name: &str) -> Result<CertifiedIssuer<'static, KeyPair>> {
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    Ok(CertifiedIssuer::self_signed(params, KeyPair::generate()?)?)
}

fn leaf(ca: &CertifiedIssuer<'static, KeyPair>, names: Vec<String>) -> Result<(String, String)> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(names)?;
    params
        .distinguished_name
        .push(DnType::CommonName, "neuralis");
    params.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    let cert = params.signed_by(&key, ca)?;
    Ok((cert.pem(), key.serialize_pem()))
}
