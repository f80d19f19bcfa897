//! Role grants: which features each role receives. Two kinds of grantor add up: a
//! package's `defaultRoleGrants` (seed 002, "requires") and the administrator's own grants.

use std::collections::{BTreeMap, BTreeSet};

use crate::AccessError;

/// The longest feature id or role name accepted.
pub const MAX_NAME_LEN: usize = 128;

/// Who granted a set of role grants. Each grantor's grants are replaced as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grantor {
    /// The deployment's administrator.
    Administrator,
    /// An installed package's `defaultRoleGrants`, by package id.
    Package(String),
}

impl Grantor {
    /// The stored key: `admin` or `package:<id>`.
    pub fn key(&self) -> String {
        match self {
            Grantor::Administrator => "admin".to_owned(),
            Grantor::Package(id) => format!("package:{id}"),
        }
    }
}

/// One grantor's grants: role name to the feature ids the role receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleGrants {
    /// Who grants.
    pub grantor: Grantor,
    /// Role to features.
    pub roles: BTreeMap<String, BTreeSet<String>>,
}

impl RoleGrants {
    /// Checks names: a package grantor needs an id, roles and features must be non-empty
    /// printable names.
    pub fn validate(&self) -> Result<(), AccessError> {
        if let Grantor::Package(id) = &self.grantor {
            check_name(id, "grantor.package")?;
        }
        for (role, features) in &self.roles {
            check_name(role, "roles")?;
            for feature in features {
                check_name(feature, &format!("roles[{role}].features"))?;
            }
        }
        Ok(())
    }
}

/// Checks a role name or feature id, naming `field`.
pub fn check_name(name: &str, field: &str) -> Result<(), AccessError> {
    if name.is_empty() {
        return Err(AccessError::invalid(field, "has an empty name"));
    }
    if name.len() > MAX_NAME_LEN {
        return Err(AccessError::invalid(
            field,
            "has a name longer than 128 bytes",
        ));
    }
    if name.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(AccessError::invalid(
            field,
            "has a name with whitespace or control characters",
        ));
    }
    Ok(())
}
