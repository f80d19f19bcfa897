//! What a configuration must hold before anything is opened or bound: `neuralis serve`
//! exits 64 naming the setting when a check fails.

use anyhow::{Result, bail};
use neuralis_identity::KeySource;
use neuralis_sync::config::BusConfig;

use super::keys;
use super::settings::NodeSettings;
use super::target::{Target, Targets};

/// Every check, in order; the first failure names its setting.
pub fn check(settings: &NodeSettings, targets: &Targets) -> Result<()> {
    split_mode_keys(settings, targets)?;
    distinct_secrets(settings)?;
    split_mode_bus(settings, targets)?;
    split_mode_peers(settings, targets)
}

/// Split mode never generates a key: every replica must verify (and sign) with the same
/// configured keys, callers' and services' alike.
fn split_mode_keys(settings: &NodeSettings, targets: &Targets) -> Result<()> {
    if targets.is_all_in_one() {
        return Ok(());
    }
    if !keys::has_configured_keys(&settings.identity) {
        bail!(
            "identity.keys: split mode needs configured verification keys (an hs256 secret, \
             public keys or a JWKS file); it never generates one"
        );
    }
    if !settings.service_identity.has_keys() {
        bail!(
            "service_identity.keys: split mode needs configured service keys (an hs256 secret \
             other than the caller secret, or public keys with a signing_key); it never \
             generates one"
        );
    }
    Ok(())
}

/// A caller token must never open a call between services: the keys differ.
fn distinct_secrets(settings: &NodeSettings) -> Result<()> {
    if let (KeySource::Hs256 { secret: caller }, KeySource::Hs256 { secret: service }) =
        (&settings.identity.keys, &settings.service_identity.keys)
        && !caller.expose().is_empty()
        && caller == service
    {
        bail!("service_identity.keys.secret: must differ from identity.keys.secret");
    }
    Ok(())
}

/// Sync and discovery in different processes cannot share an in-process bus.
fn split_mode_bus(settings: &NodeSettings, targets: &Targets) -> Result<()> {
    let separated = targets.runs(Target::Sync) != targets.runs(Target::Discovery);
    if separated && settings.sync.bus == BusConfig::InProcess {
        bail!("sync.bus: sync and discovery run in different processes, so the bus must be redis");
    }
    Ok(())
}

/// Discovery reaches what it does not run.
fn split_mode_peers(settings: &NodeSettings, targets: &Targets) -> Result<()> {
    if !targets.runs(Target::Discovery) {
        return Ok(());
    }
    if !targets.runs(Target::Sync) && settings.peers.sync_feed_url.is_none() {
        bail!("peers.sync_feed_url: discovery needs sync's index feed (its internal listener)");
    }
    if !targets.runs(Target::Policy) && settings.peers.policy_url.is_none() {
        bail!("peers.policy_url: discovery needs the policy service");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use neuralis_identity::Secret;

    fn hs256(secret: &str) -> KeySource {
        KeySource::Hs256 {
            secret: Secret::new(secret),
        }
    }

    fn split_ready() -> NodeSettings {
        let mut settings = NodeSettings::default();
        settings.identity.keys = hs256(&"c".repeat(40));
        settings.service_identity.keys = hs256(&"s".repeat(40));
        settings
    }

    fn error(settings: &NodeSettings, targets: &Targets) -> String {
        check(settings, targets).unwrap_err().to_string()
    }

    #[test]
    fn split_mode_names_the_missing_caller_or_service_keys() {
        let policy = Targets::new([Target::Policy]);
        assert!(error(&NodeSettings::default(), &policy).starts_with("identity.keys"));
        let mut settings = split_ready();
        settings.service_identity = Default::default();
        assert!(error(&settings, &policy).starts_with("service_identity.keys"));
        assert!(check(&split_ready(), &policy).is_ok());
        assert!(
            check(&NodeSettings::default(), &Targets::new([])).is_ok(),
            "all-in-one creates its local keys"
        );
    }

    #[test]
    fn the_caller_and_service_secrets_must_differ() {
        let mut settings = split_ready();
        settings.service_identity.keys = settings.identity.keys.clone();
        for targets in [Targets::new([]), Targets::new([Target::Policy])] {
            assert!(error(&settings, &targets).starts_with("service_identity.keys.secret"));
        }
    }

    #[test]
    fn sync_and_discovery_apart_need_the_redis_bus() {
        let mut settings = split_ready();
        settings.peers.policy_url = Some("http://policy:7400".into());
        for alone in [Target::Sync, Target::Discovery] {
            assert!(error(&settings, &Targets::new([alone])).starts_with("sync.bus"));
        }
        assert!(check(&settings, &Targets::new([Target::Policy])).is_ok());
        assert!(check(&settings, &Targets::new([Target::Sync, Target::Discovery])).is_ok());
    }

    #[test]
    fn discovery_alone_names_the_peers_it_needs() {
        let mut settings = split_ready();
        settings.sync.bus = BusConfig::Redis {
            url: "redis://x".into(),
            channel: "c".into(),
        };
        let discovery = Targets::new([Target::Discovery]);
        assert!(error(&settings, &discovery).starts_with("peers.sync_feed_url"));
        settings.peers.sync_feed_url = Some("http://sync:7401".into());
        assert!(error(&settings, &discovery).starts_with("peers.policy_url"));
        settings.peers.policy_url = Some("http://policy:7400".into());
        assert!(check(&settings, &discovery).is_ok());
    }
}
