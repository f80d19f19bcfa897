//! Administrative requests as store records.

use std::collections::{BTreeMap, BTreeSet};

use neuralis_access::grant::check_name;
use neuralis_access::pattern::split_path;
use neuralis_access::{Grantor, RoleGrants};
use neuralis_access_store::{ConversationRecord, FileRef, OverrideTarget, RoleFeatures};
use neuralis_proto::bounds;
use neuralis_proto::policy::v1 as pb;

use super::{conversation_id, optional, required, required_conversation_id};
use crate::PolicyError;

/// A `PutRoleGrants` call in store terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantsCall {
    /// The project (`None`: every project).
    pub project: Option<String>,
    /// The grantor's grants.
    pub grants: RoleGrants,
    /// The administrator's revocations of package default grants (always empty for a
    /// package grantor).
    pub revoked: RoleFeatures,
}

/// The project a grantor's role grants apply in (`None`: every project), the grants and,
/// for the administrator, the revocations; repeated roles merge.
pub fn grants_from_proto(request: pb::PutRoleGrantsRequest) -> Result<GrantsCall, PolicyError> {
    let project = match optional(request.project_id) {
        Some(project) if project.trim().is_empty() => {
            return Err(PolicyError::invalid("project_id", "is blank"));
        }
        Some(project) => Some(super::project_id(project, "project_id")?),
        None => None,
    };
    bounds::id("package_id", &request.package_id)?;
    bounds::count("grants", request.grants.len(), bounds::MAX_REPEATED)?;
    for (at, grant) in request.grants.iter().enumerate() {
        bounds::id(&format!("grants[{at}].role"), &grant.role)?;
        bounds::each(
            &format!("grants[{at}].features"),
            &grant.features,
            bounds::id,
        )?;
        bounds::each(&format!("grants[{at}].revoked"), &grant.revoked, bounds::id)?;
    }
    let grantor = match pb::GrantorKind::try_from(request.grantor) {
        Ok(pb::GrantorKind::Administrator) => Grantor::Administrator,
        Ok(pb::GrantorKind::Package) => {
            Grantor::Package(required(request.package_id, "package_id")?)
        }
        _ => {
            return Err(PolicyError::invalid(
                "grantor",
                "must be administrator or package",
            ));
        }
    };
    let mut roles: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut revoked = RoleFeatures::new();
    for (at, grant) in request.grants.into_iter().enumerate() {
        let role = required(grant.role, &format!("grants[{at}].role"))?;
        if !grant.revoked.is_empty() {
            if grantor != Grantor::Administrator {
                return Err(PolicyError::invalid(
                    format!("grants[{at}].revoked"),
                    "only the administrator revokes default grants",
                ));
            }
            for feature in &grant.revoked {
                check_name(feature, &format!("grants[{at}].revoked"))?;
            }
            revoked
                .entry(role.clone())
                .or_default()
                .extend(grant.revoked);
        }
        roles.entry(role).or_default().extend(grant.features);
    }
    roles.retain(|_, features| !features.is_empty());
    let grants = RoleGrants { grantor, roles };
    grants.validate()?;
    Ok(GrantsCall {
        project,
        grants,
        revoked,
    })
}

/// Whose override, of which file, and the new state (`None` clears it).
pub fn override_from_proto(
    request: pb::SetFileOverrideRequest,
) -> Result<(OverrideTarget, FileRef, Option<bool>), PolicyError> {
    bounds::id("owner_id", &request.owner_id)?;
    bounds::path("file_path", &request.file_path)?;
    let owner = required(request.owner_id, "owner_id")?;
    let target = match pb::OverrideScope::try_from(request.scope) {
        Ok(pb::OverrideScope::Agent) => OverrideTarget::Agent(owner),
        Ok(pb::OverrideScope::Conversation) => OverrideTarget::Conversation {
            project: required(request.project_id, "project_id")?,
            id: required_conversation_id(owner, "owner_id")?,
        },
        _ => {
            return Err(PolicyError::invalid(
                "scope",
                "must be agent or conversation",
            ));
        }
    };
    let state = match pb::OverrideState::try_from(request.state) {
        Ok(pb::OverrideState::On) => Some(true),
        Ok(pb::OverrideState::Off) => Some(false),
        Ok(pb::OverrideState::Clear) => None,
        _ => return Err(PolicyError::invalid("state", "must be on, off or clear")),
    };
    if request.file_path.is_empty() {
        return Err(PolicyError::invalid("file_path", "is required"));
    }
    split_path(&request.file_path, "file_path")?;
    let file = FileRef {
        package_key: required(request.package_key, "package_key")?,
        path: request.file_path,
    };
    Ok((target, file, state))
}

/// A conversation and its parent.
pub fn conversation_from_proto(
    request: pb::RegisterConversationRequest,
) -> Result<ConversationRecord, PolicyError> {
    let record = ConversationRecord {
        conversation: required_conversation_id(request.conversation_id, "conversation_id")?,
        project: required(request.project_id, "project_id")?,
        parent: conversation_id(request.parent_conversation_id, "parent_conversation_id")?,
    };
    if record.parent.as_deref() == Some(record.conversation.as_str()) {
        return Err(PolicyError::invalid(
            "parent_conversation_id",
            "cannot be the conversation itself",
        ));
    }
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(error: PolicyError) -> String {
        match error {
            PolicyError::InvalidArgument { field, .. } => field,
            other => panic!("{other}"),
        }
    }

    #[test]
    fn bad_administrative_requests_name_the_field() {
        let grants = |grantor: pb::GrantorKind, package: &str, role: &str, feature: &str| {
            pb::PutRoleGrantsRequest {
                grantor: grantor.into(),
                package_id: package.into(),
                grants: vec![pb::RoleGrant {
                    role: role.into(),
                    features: vec![feature.into()],
                    revoked: vec![],
                }],
                project_id: String::new(),
            }
        };
        let cases = [
            (
                grants_from_proto(grants(pb::GrantorKind::Unspecified, "", "member", "f")).err(),
                "grantor",
            ),
            (
                grants_from_proto(grants(pb::GrantorKind::Package, "", "member", "f")).err(),
                "package_id",
            ),
            (
                grants_from_proto(grants(pb::GrantorKind::Administrator, "", " ", "f")).err(),
                "grants[0].role",
            ),
            (
                grants_from_proto(grants(pb::GrantorKind::Administrator, "", "member", "a b"))
                    .err(),
                "roles[member].features",
            ),
            (
                grants_from_proto(pb::PutRoleGrantsRequest {
                    project_id: " ".into(),
                    ..grants(pb::GrantorKind::Administrator, "", "member", "f")
                })
                .err(),
                "project_id",
            ),
        ];
        let package_revoke = pb::PutRoleGrantsRequest {
            grants: vec![pb::RoleGrant {
                role: "member".into(),
                features: vec![],
                revoked: vec!["f".into()],
            }],
            ..grants(pb::GrantorKind::Package, "acme", "member", "f")
        };
        let cases = cases
            .into_iter()
            .chain([(grants_from_proto(package_revoke).err(), "grants[0].revoked")]);
        for (error, expected) in cases {
            assert_eq!(field(error.unwrap()), expected);
        }
        let file_override =
            |scope: pb::OverrideScope, owner: &str, path: &str, state: pb::OverrideState| {
                pb::SetFileOverrideRequest {
                    scope: scope.into(),
                    owner_id: owner.into(),
                    package_key: "repo/.claude".into(),
                    file_path: path.into(),
                    state: state.into(),
                    project_id: "p1".into(),
                }
            };
        let cases = [
            (
                file_override(
                    pb::OverrideScope::Unspecified,
                    "a1",
                    "rules/a.md",
                    pb::OverrideState::On,
                ),
                "scope",
            ),
            (
                file_override(
                    pb::OverrideScope::Agent,
                    "",
                    "rules/a.md",
                    pb::OverrideState::On,
                ),
                "owner_id",
            ),
            (
                file_override(pb::OverrideScope::Agent, "a1", "", pb::OverrideState::On),
                "file_path",
            ),
            (
                file_override(
                    pb::OverrideScope::Agent,
                    "a1",
                    "../x",
                    pb::OverrideState::On,
                ),
                "file_path",
            ),
            (
                file_override(
                    pb::OverrideScope::Agent,
                    "a1",
                    "rules/a.md",
                    pb::OverrideState::Unspecified,
                ),
                "state",
            ),
        ];
        for (request, expected) in cases {
            assert_eq!(field(override_from_proto(request).unwrap_err()), expected);
        }
        let conversation =
            |id: &str, project: &str, parent: &str| pb::RegisterConversationRequest {
                conversation_id: id.into(),
                project_id: project.into(),
                parent_conversation_id: parent.into(),
            };
        let cases = [
            (conversation("", "p1", ""), "conversation_id"),
            (conversation("c1", "", ""), "project_id"),
            (conversation("c1", "p1", "c1"), "parent_conversation_id"),
            (
                conversation(&"c".repeat(1 << 20), "p1", ""),
                "conversation_id",
            ),
            (conversation("c\0", "p1", ""), "conversation_id"),
            (
                conversation("c1", "p1", &"p".repeat(257)),
                "parent_conversation_id",
            ),
        ];
        for (request, expected) in cases {
            assert_eq!(
                field(conversation_from_proto(request).unwrap_err()),
                expected
            );
        }
    }
}
