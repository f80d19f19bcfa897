//! Role grants from `--grant ROLE=FEATURE[,FEATURE...]` flags.

use anyhow::{Result, anyhow};
use neuralis_proto::policy::v1 as pb;

/// `ROLE=FEATURE[,FEATURE...]` flags as grants.
pub fn parse_grants(flags: &[String]) -> Result<Vec<pb::RoleGrant>> {
    flags
        .iter()
        .map(|flag| {
            let (role, features) = flag
                .split_once('=')
                .ok_or_else(|| anyhow!("--grant {flag:?}: expected ROLE=FEATURE[,FEATURE...]"))?;
            if role.trim().is_empty() {
                return Err(anyhow!("--grant {flag:?}: the role is empty"));
            }
            Ok(pb::RoleGrant {
                role: role.trim().to_owned(),
                features: features
                    .split(',')
                    .map(str::trim)
                    .filter(|f| !f.is_empty())
                    .map(str::to_owned)
                    .collect(),
                revoked: Vec::new(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_parse_role_and_features() {
        let grants = parse_grants(&["member=search, read".into(), "guest=".into()]).expect("ok");
        assert_eq!(grants[0].role, "member");
        assert_eq!(grants[0].features, ["search", "read"]);
        assert!(grants[1].features.is_empty());
        assert!(parse_grants(&["nofeatures".into()]).is_err());
    }
}
