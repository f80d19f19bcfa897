//! A store that holds every snapshot read until the test lets it through: a request is
//! then provably in flight (verified, validated, waiting on the store) when a change lands.

use std::sync::Arc;

use async_trait::async_trait;
use neuralis_access::{AccessSnapshot, RoleGrants, SourceRecord, UriPolicy};
use neuralis_access_store::{
    AccessStore, ConversationRecord, FileRef, OverrideTarget, SnapshotQuery, StoreError,
};
use tokio::sync::{Semaphore, mpsc};

/// A store that holds every snapshot read until the test lets it through.
pub struct PausedReads {
    pub inner: Arc<dyn AccessStore>,
    pub arrived: mpsc::UnboundedSender<()>,
    pub release: Semaphore,
}

#[async_trait]
impl AccessStore for PausedReads {
    async fn put_source_policy(
        &self,
        source_id: &str,
        policy: &UriPolicy,
    ) -> Result<UriPolicy, StoreError> {
        self.inner.put_source_policy(source_id, policy).await
    }
    async fn source(&self, source_id: &str) -> Result<Option<SourceRecord>, StoreError> {
        self.inner.source(source_id).await
    }
    async fn conversation(
        &self,
        project: &str,
        id: &str,
    ) -> Result<Option<neuralis_access_store::ConversationRecord>, StoreError> {
        self.inner.conversation(project, id).await
    }
    async fn set_source_enabled(&self, source_id: &str, enabled: bool) -> Result<(), StoreError> {
        self.inner.set_source_enabled(source_id, enabled).await
    }
    async fn forget_source(&self, source_id: &str) -> Result<(), StoreError> {
        self.inner.forget_source(source_id).await
    }
    async fn rekey_packages(
        &self,
        source_id: &str,
        moves: &[neuralis_access_store::PackageKeyMove],
    ) -> Result<bool, StoreError> {
        self.inner.rekey_packages(source_id, moves).await
    }
    async fn put_role_grants(
        &self,
        project: Option<&str>,
        grants: &RoleGrants,
    ) -> Result<(), StoreError> {
        self.inner.put_role_grants(project, grants).await
    }
    async fn retire_packages(
        &self,
        installed: &std::collections::BTreeSet<String>,
    ) -> Result<(), StoreError> {
        self.inner.retire_packages(installed).await
    }
    async fn attach_package(
        &self,
        defaults: &neuralis_access_store::PackageDefaults,
    ) -> Result<(), StoreError> {
        self.inner.attach_package(defaults).await
    }
    async fn put_grant_revocations(
        &self,
        project: Option<&str>,
        revoked: &neuralis_access_store::RoleFeatures,
    ) -> Result<(), StoreError> {
        self.inner.put_grant_revocations(project, revoked).await
    }
    async fn put_administrator_grants(
        &self,
        project: Option<&str>,
        granted: &neuralis_access_store::RoleFeatures,
        revoked: &neuralis_access_store::RoleFeatures,
    ) -> Result<(), StoreError> {
        self.inner
            .put_administrator_grants(project, granted, revoked)
            .await
    }
    async fn grant_revocations(
        &self,
        project: Option<&str>,
    ) -> Result<neuralis_access_store::RoleFeatures, StoreError> {
        self.inner.grant_revocations(project).await
    }
    async fn set_package_enabled(
        &self,
        project: &str,
        package_key: &str,
        enabled: bool,
    ) -> Result<(), StoreError> {
        self.inner
            .set_package_enabled(project, package_key, enabled)
            .await
    }
    async fn forget_package_state(
        &self,
        project: &str,
        package_key: &str,
    ) -> Result<(), StoreError> {
        self.inner.forget_package_state(project, package_key).await
    }
    async fn set_file_override(
        &self,
        target: &OverrideTarget,
        file: &FileRef,
        state: Option<bool>,
    ) -> Result<(), StoreError> {
        self.inner.set_file_override(target, file, state).await
    }
    async fn register_conversation(&self, record: &ConversationRecord) -> Result<(), StoreError> {
        self.inner.register_conversation(record).await
    }
    async fn snapshot(&self, query: &SnapshotQuery) -> Result<AccessSnapshot, StoreError> {
        let _ = self.arrived.send(());
        let permit = self
            .release
            .acquire()
            .await
            .map_err(|_| StoreError::Unavailable("closed".into()))?;
        permit.forget();
        self.inner.snapshot(query).await
    }
}
