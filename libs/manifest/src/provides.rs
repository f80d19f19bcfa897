//! `provides` (seed 002 "provides — host service contracts"): the closed service
//! vocabulary, first-party only; OAuth callback prefixes are lowercase, end in `_`,
//! have 3 to 32 characters and never overlap.

use crate::issue::Pointer;
use crate::shape::Cx;
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::Value;

/// One host service contract a first-party package implements.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Service {
    Runtime,
    SessionTicketVerifier,
    AgentDirectory,
    ChannelGateway,
    PackageSourceRoots,
    McpServer,
    /// `oauth-callback:<prefix>`.
    OauthCallback(String),
}

impl Service {
    /// The contract id as written in a manifest.
    pub fn contract_id(&self) -> String {
        match self {
            Service::Runtime => "runtime".into(),
            Service::SessionTicketVerifier => "session-ticket-verifier".into(),
            Service::AgentDirectory => "agent-directory".into(),
            Service::ChannelGateway => "channel-gateway".into(),
            Service::PackageSourceRoots => "package-source-roots".into(),
            Service::McpServer => "mcp-server".into(),
            Service::OauthCallback(prefix) => format!("oauth-callback:{prefix}"),
        }
    }

    /// Runtime and ticket verifier are required singletons: a deployment has exactly one.
    pub fn is_required_singleton(&self) -> bool {
        matches!(self, Service::Runtime | Service::SessionTicketVerifier)
    }
}

const VOCABULARY: &str = "runtime, session-ticket-verifier, agent-directory, channel-gateway, package-source-roots, mcp-server, oauth-callback:<prefix>";

/// Parses one contract id of the closed vocabulary.
pub fn parse_service(text: &str) -> Option<Service> {
    Some(match text {
        "runtime" => Service::Runtime,
        "session-ticket-verifier" => Service::SessionTicketVerifier,
        "agent-directory" => Service::AgentDirectory,
        "channel-gateway" => Service::ChannelGateway,
        "package-source-roots" => Service::PackageSourceRoots,
        "mcp-server" => Service::McpServer,
        other => Service::OauthCallback(other.strip_prefix("oauth-callback:")?.to_owned()),
    })
}

/// Why an OAuth callback prefix is not allowed, or `None` when it is.
pub fn oauth_prefix_problem(prefix: &str) -> Option<&'static str> {
    let len = prefix.chars().count();
    if !(3..=32).contains(&len) {
        return Some("must have 3 to 32 characters");
    }
    if !prefix.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Some("must start with a lowercase letter");
    }
    if !prefix
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return Some("must be lowercase letters, digits and _");
    }
    if !prefix.ends_with('_') {
        return Some("must end in _");
    }
    None
}

/// Two prefixes overlap when one starts with the other: a callback could not tell
/// them apart.
pub fn prefixes_overlap(a: &str, b: &str) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<Service> {
    if !cx.honored(at, Trust::FirstParty, "provides") {
        // "declarations from other tiers are dropped" — after they are validated.
        cx.check_dropped(|cx| {
            services(cx, value, at);
        });
        return Vec::new();
    }
    services(cx, value, at)
}

fn services(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<Service> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut services: Vec<Service> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(text) = cx.string(item, &item_at) else {
            continue;
        };
        let Some(service) = parse_service(text) else {
            cx.error(
                &item_at,
                format!("{text:?} is not a host service contract; allowed: {VOCABULARY}"),
            );
            continue;
        };
        if let Some(problem) = accept(&services, &service) {
            cx.error(&item_at, problem);
            continue;
        }
        services.push(service);
    }
    services
}

fn accept(seen: &[Service], service: &Service) -> Option<String> {
    if seen.contains(service) {
        return Some(format!("{} is declared twice", service.contract_id()));
    }
    let Service::OauthCallback(prefix) = service else {
        return None;
    };
    if let Some(problem) = oauth_prefix_problem(prefix) {
        return Some(format!("oauth-callback prefix {prefix:?} {problem}"));
    }
    seen.iter().find_map(|other| match other {
        Service::OauthCallback(p) if prefixes_overlap(p, prefix) => {
            Some(format!("oauth-callback prefix {prefix:?} overlaps {p:?}"))
        }
        _ => None,
    })
}
