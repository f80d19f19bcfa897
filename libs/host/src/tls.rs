//! TLS from PEM files: the server side of every gRPC port a process serves, and the
//! client side of every call it makes to a peer.
//!
//! Files are read and parsed when the settings are checked, before any port is bound,
//! so a missing or malformed file stops the process at start naming its key.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tonic::transport::{Certificate, ClientTlsConfig, Endpoint, Identity, Server, ServerTlsConfig};

/// A TLS setting that cannot be used, naming its key.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{key}: {message}")]
pub struct TlsError {
    /// The configuration key at fault, e.g. `tls.cert_file`.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl TlsError {
    pub(crate) fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// `tls.*`: TLS on every gRPC port this process serves. Off when no certificate is
/// named; with `client_ca_file`, every client must present a certificate that CA
/// signed (mutual TLS).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServerTlsSettings {
    /// The server's certificate chain (PEM).
    pub cert_file: Option<PathBuf>,
    /// The certificate's private key (PEM).
    pub key_file: Option<PathBuf>,
    /// Require client certificates signed by this CA (PEM).
    pub client_ca_file: Option<PathBuf>,
}

impl ServerTlsSettings {
    /// The server configuration, or `None` when TLS is off. `section` names the
    /// settings' key in errors (`tls`).
    pub fn load(&self, section: &str) -> Result<Option<ServerTlsConfig>, TlsError> {
        let (cert, key) = match (&self.cert_file, &self.key_file) {
            (None, None) => {
                if self.client_ca_file.is_some() {
                    return Err(TlsError::new(
                        format!("{section}.client_ca_file"),
                        "needs cert_file and key_file: mutual TLS is TLS first",
                    ));
                }
                return Ok(None);
            }
            (Some(cert), Some(key)) => (cert, key),
            (Some(_), None) => {
                return Err(TlsError::new(
                    format!("{section}.key_file"),
                    "required with cert_file",
                ));
            }
            (None, Some(_)) => {
                return Err(TlsError::new(
                    format!("{section}.cert_file"),
                    "required with key_file",
                ));
            }
        };
        let identity = Identity::from_pem(
            read_pem(cert, &format!("{section}.cert_file"), "CERTIFICATE")?,
            read_pem(key, &format!("{section}.key_file"), "PRIVATE KEY")?,
        );
        let mut config = ServerTlsConfig::new().identity(identity);
        if let Some(ca) = &self.client_ca_file {
            let ca = read_pem(ca, &format!("{section}.client_ca_file"), "CERTIFICATE")?;
            config = config.client_ca_root(Certificate::from_pem(ca));
        }
        // Building a server parses the key and certificates: a bad pair fails here, at
        // start, rather than on the first connection.
        Server::builder()
            .tls_config(config.clone())
            .map_err(|e| TlsError::new(format!("{section}.cert_file"), source_chain(&e)))?;
        Ok(Some(config))
    }
}

/// The client side of calls to peers: the CA that signed their certificates (the
/// system roots when none is named) and, for mutual TLS, this process's certificate.
#[derive(Debug, Clone, Default)]
pub struct ClientTls {
    ca: Option<Certificate>,
    identity: Option<Identity>,
    section: String,
}

impl ClientTls {
    /// Reads the files; `section` names their keys in errors (`peers`).
    pub fn load(
        section: &str,
        ca_file: Option<&Path>,
        cert_file: Option<&Path>,
        key_file: Option<&Path>,
    ) -> Result<Self, TlsError> {
        let ca = ca_file
            .map(|path| read_pem(path, &format!("{section}.ca_file"), "CERTIFICATE"))
            .transpose()?
            .map(Certificate::from_pem);
        let identity = match (cert_file, key_file) {
            (None, None) => None,
            (Some(cert), Some(key)) => Some(Identity::from_pem(
                read_pem(cert, &format!("{section}.cert_file"), "CERTIFICATE")?,
                read_pem(key, &format!("{section}.key_file"), "PRIVATE KEY")?,
            )),
            (Some(_), None) => {
                return Err(TlsError::new(
                    format!("{section}.key_file"),
                    "required with cert_file",
                ));
            }
            (None, Some(_)) => {
                return Err(TlsError::new(
                    format!("{section}.cert_file"),
                    "required with key_file",
                ));
            }
        };
        Ok(Self {
            ca,
            identity,
            section: section.to_owned(),
        })
    }

    /// Whether a CA or a client certificate was configured (so plain `http://` peers
    /// would silently drop what the operator asked for).
    pub fn is_configured(&self) -> bool {
        self.ca.is_some() || self.identity.is_some()
    }

    /// An endpoint for `url` (`key` names it in errors): TLS for `https://`, plain for
    /// `http://`, which is refused when TLS settings were given.
    pub fn endpoint(&self, url: &str, key: &str) -> Result<Endpoint, TlsError> {
        self.endpoint_for(url, key, None)
    }

    /// Like [`ClientTls::endpoint`], checking the peer's certificate against
    /// `server_name` instead of the URL's host.
    pub fn endpoint_for(
        &self,
        url: &str,
        key: &str,
        server_name: Option<&str>,
    ) -> Result<Endpoint, TlsError> {
        let endpoint = Endpoint::from_shared(url.to_owned())
            .map_err(|e| TlsError::new(key, format!("{url:?} is not a URL: {e}")))?;
        match endpoint.uri().scheme_str() {
            Some("https") => {
                let config = self.client_config(server_name);
                endpoint
                    .tls_config(config)
                    .map_err(|e| TlsError::new(self.section_key("ca_file"), source_chain(&e)))
            }
            Some("http") if self.is_configured() => Err(TlsError::new(
                key,
                format!(
                    "{url:?} is plain http while {}.ca_file or cert_file is set: use https://",
                    self.section
                ),
            )),
            Some("http") => Ok(endpoint),
            _ => Err(TlsError::new(
                key,
                format!("{url:?}: expected an http:// or https:// URL"),
            )),
        }
    }

    fn client_config(&self, server_name: Option<&str>) -> ClientTlsConfig {
        let mut config = ClientTlsConfig::new();
        config = match &self.ca {
            Some(ca) => config.ca_certificate(ca.clone()),
            None => config.with_native_roots(),
        };
        if let Some(identity) = &self.identity {
            config = config.identity(identity.clone());
        }
        if let Some(name) = server_name {
            config = config.domain_name(name);
        }
        config
    }

    fn section_key(&self, field: &str) -> String {
        if self.section.is_empty() {
            field.to_owned()
        } else {
            format!("{}.{field}", self.section)
        }
    }
}

/// Reads a PEM file and checks it holds a block whose label contains `label`
/// (`CERTIFICATE`, `PRIVATE KEY`), so a swapped or empty file is named at start.
fn read_pem(path: &Path, key: &str, label: &str) -> Result<Vec<u8>, TlsError> {
    let bytes = std::fs::read(path)
        .map_err(|e| TlsError::new(key, format!("cannot read {}: {e}", path.display())))?;
    let text = String::from_utf8_lossy(&bytes);
    let has_block = text
        .lines()
        .any(|line| line.starts_with("-----BEGIN ") && line.contains(label));
    if !has_block {
        return Err(TlsError::new(
            key,
            format!("{} holds no PEM {label}", path.display()),
        ));
    }
    Ok(bytes)
}

/// An error and its sources on one line (tonic's transport errors say little alone).
fn source_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        message.push_str(": ");
        message.push_str(&inner.to_string());
        source = inner.source();
    }
    message
}

/// Installs the one TLS implementation every client and server of the process uses
/// (rustls with aws-lc), once; later calls do nothing.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}
