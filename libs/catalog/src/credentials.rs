//! The credentials catalog (seed 002 "credentials"): "the union of every loaded
//! package's credentials[], every installed skill's credentials: frontmatter, and any
//! ids already stored by hand (package ∪ skill ∪ manual); the member view is filtered
//! to the packages and skills that member is actually allowed to see." A row is
//! catalog metadata only, never a grant.

use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Where a credential id comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum CredentialOrigin {
    /// A package's `credentials[]`.
    Package { package: String },
    /// An installed skill's `credentials:` frontmatter.
    Skill { package: String, skill: String },
    /// Stored by hand, declared by nobody.
    Stored,
}

/// One row of the catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CredentialRow {
    pub id: String,
    /// The first declaring package's label (packages are offered in load order).
    pub label: Option<String>,
    pub category: Option<String>,
    pub oauth: bool,
    pub origins: BTreeSet<CredentialOrigin>,
}

/// Every credential id an owner can set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CredentialCatalog {
    rows: BTreeMap<String, CredentialRow>,
}

impl CredentialCatalog {
    /// Adds a package's declaration; the first declaration's metadata is kept.
    pub fn declare(
        &mut self,
        package: &str,
        credential: &neuralis_manifest::credentials::Credential,
    ) {
        let row = self.row(&credential.id);
        if row.label.is_none() {
            row.label = Some(credential.label.clone());
            row.category = credential.category.clone();
            row.oauth = credential.oauth;
        }
        row.origins.insert(CredentialOrigin::Package {
            package: package.to_owned(),
        });
    }

    /// Adds an id named by a skill's `credentials:` frontmatter.
    pub fn mention(&mut self, package: &str, skill: &str, id: &str) {
        let origin = CredentialOrigin::Skill {
            package: package.to_owned(),
            skill: skill.to_owned(),
        };
        self.row(id).origins.insert(origin);
    }

    /// Adds ids already stored by hand.
    pub fn stored(&mut self, ids: impl IntoIterator<Item = impl AsRef<str>>) {
        for id in ids {
            self.row(id.as_ref())
                .origins
                .insert(CredentialOrigin::Stored);
        }
    }

    fn row(&mut self, id: &str) -> &mut CredentialRow {
        self.rows
            .entry(id.to_owned())
            .or_insert_with(|| CredentialRow {
                id: id.to_owned(),
                ..CredentialRow::default()
            })
    }

    /// The owner/admin view: every row.
    pub fn rows(&self) -> impl Iterator<Item = &CredentialRow> {
        self.rows.values()
    }

    /// The member view: rows declared by a package (or a skill of a package) the
    /// member can see; stored-only ids are not in it.
    pub fn member_view(&self, visible: impl Fn(&str) -> bool) -> Vec<&CredentialRow> {
        self.rows
            .values()
            .filter(|row| {
                row.origins.iter().any(|o| match o {
                    CredentialOrigin::Package { package }
                    | CredentialOrigin::Skill { package, .. } => visible(package),
                    CredentialOrigin::Stored => false,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neuralis_manifest::credentials::Credential;

    fn cred(id: &str, label: &str) -> Credential {
        Credential {
            id: id.into(),
            label: label.into(),
            category: Some("llm".into()),
            oauth: false,
        }
    }

    #[test]
    fn the_catalog_is_the_union_of_packages_skills_and_stored_ids() {
        let mut catalog = CredentialCatalog::default();
        catalog.declare("@neuralis/llm", &cred("llm.anthropic", "Anthropic API Key"));
        catalog.declare("acme", &cred("llm.anthropic", "Other label"));
        catalog.mention("acme", "search", "acme.apiKey");
        catalog.stored(["manual.key", "llm.anthropic"]);
        let ids: Vec<&str> = catalog.rows().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["acme.apiKey", "llm.anthropic", "manual.key"]);
        let anthropic = catalog
            .rows()
            .find(|r| r.id == "llm.anthropic")
            .expect("row");
        assert_eq!(anthropic.label.as_deref(), Some("Anthropic API Key"));
        assert_eq!(anthropic.origins.len(), 3);
    }

    #[test]
    fn the_member_view_is_filtered_to_visible_packages_and_skills() {
        let mut catalog = CredentialCatalog::default();
        catalog.declare("visible", &cred("a.key", "A"));
        catalog.declare("hidden", &cred("b.key", "B"));
        catalog.mention("visible", "skill", "c.key");
        catalog.stored(["d.key"]);
        let ids: Vec<&str> = catalog
            .member_view(|p| p == "visible")
            .iter()
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(ids, ["a.key", "c.key"]);
    }
}
