//! In-memory stand-ins for sync and policy, and real tokens signed with a test key, so
//! discovery's own rules are tested without a network. The end-to-end suites in `tests/` use the real services.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use neuralis_access::{
    Caller, Decision, DecisionCode, Evaluation, EvaluationRequest, Scope, SourceScope,
};
use neuralis_authz::{Gate, Verifiers, tables};
use neuralis_bus::{InProcessBus, InvalidationBus, InvalidationEvent, Phase};
use neuralis_discovery::inventory::InventoryShell;
use neuralis_discovery::ports::{
    AccessPort, DecidedRow, EmptyCatalog, IndexPort, IndexRow, ProjectRows, RawHit, SourceInfo,
};
use neuralis_discovery::service::DiscoveryParts;
use neuralis_discovery::{
    CallerToken, Discovery, DiscoveryError, DiscoverySettings, InProcessDiscovery,
};
use neuralis_identity::{
    Claims, IdentityConfig, KeySource, Secret, ServiceIdentityConfig, ServiceVerifier, Verifier,
    mint,
};
use neuralis_layout::{Category, capture};

pub mod listing;
pub mod package_sources;

/// Called with the path of a content read.
pub type ReadHook = Box<dyn Fn(&str) + Send + Sync>;

/// A fake index: files per source, with counters.
#[derive(Default)]
pub struct FakeIndex {
    pub files: Mutex<BTreeMap<(String, String), Vec<u8>>>,
    pub revision: AtomicUsize,
    pub row_reads: AtomicUsize,
    pub content_reads: Mutex<Vec<String>>,
    pub down: std::sync::atomic::AtomicBool,
    /// Sources that are local directories on this host.
    pub local_roots: Mutex<BTreeMap<String, std::path::PathBuf>>,
    /// Privacy patterns by source, as configured now (re-read on every request).
    pub privacy: Mutex<BTreeMap<String, Vec<String>>>,
    /// Sources flagged `recognizesPackages`.
    pub recognizing: Mutex<HashSet<String>>,
    /// Sources of a scope other than the project's.
    pub scopes: Mutex<BTreeMap<String, SourceScope>>,
    /// Every raw search the feed answered: (query, limit).
    pub searches: Mutex<Vec<(String, u32)>>,
    /// Content written after the sync: what reads return instead of the indexed bytes.
    pub grown: Mutex<BTreeMap<(String, String), Vec<u8>>>,
    /// Files reached through an in-root symlink: (source, link path) to the real path.
    pub aliases: Mutex<BTreeMap<(String, String), String>>,
    /// Held by a test to keep row reads waiting; `rows_waiting` counts the reads that
    /// reached it.
    pub rows_gate: tokio::sync::Mutex<()>,
    pub rows_waiting: AtomicUsize,
    pub source_reads: AtomicUsize,
    /// Held by a test to keep raw searches waiting; `searches_waiting` counts the
    /// searches that reached it.
    pub search_gate: tokio::sync::Mutex<()>,
    pub searches_waiting: AtomicUsize,
    /// The same for content reads: held, it keeps them waiting, counted in
    /// `reads_waiting`.
    pub read_gate: tokio::sync::Mutex<()>,
    pub reads_waiting: AtomicUsize,
    /// Called with the path of every content read, before it is answered (a test
    /// changes access while a call reads).
    pub on_read: Mutex<Option<ReadHook>>,
}

impl FakeIndex {
    pub fn put(&self, source: &str, path: &str, content: &str) {
        self.files
            .lock()
            .unwrap()
            .insert((source.into(), path.into()), content.as_bytes().to_vec());
        self.revision.fetch_add(1, Ordering::SeqCst);
    }

    /// Changes a file's bytes the way a write after the sync does: the index (rows,
    /// revision) does not see it, reads do.
    pub fn rewrite_content_only(&self, source: &str, path: &str, content: &str) {
        let files = self.files.lock().unwrap();
        let key = (source.to_owned(), path.to_owned());
        assert!(files.contains_key(&key), "{path} is not indexed");
        self.grown
            .lock()
            .unwrap()
            .insert(key, content.as_bytes().to_vec());
    }

    pub fn remove_content_only(&self, source: &str, path: &str) -> Vec<u8> {
        self.files
            .lock()
            .unwrap()
            .remove(&(source.into(), path.into()))
            .unwrap()
    }

    fn read_rows(&self) -> ProjectRows {
        let files = self.files.lock().unwrap();
        let aliases = self.aliases.lock().unwrap();
        let rows = files
            .iter()
            .map(|((source, path), content)| IndexRow {
                source_id: source.clone(),
                path: path.clone(),
                size: content.len() as u64,
                payload: capture(path, Some(content)),
                real_path: aliases.get(&(source.clone(), path.clone())).cloned(),
                // As the sync stores them: for the files the flags apply to.
                content_flags: content_flags(path, content),
                fingerprint: neuralis_connector::fingerprint(content),
            })
            .collect();
        ProjectRows {
            revision: self.revision.load(Ordering::SeqCst) as u64,
            rows,
        }
    }

    fn check_up(&self) -> Result<(), DiscoveryError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(DiscoveryError::Unavailable("sync down".into()));
        }
        Ok(())
    }
}

pub fn source(id: &str) -> SourceInfo {
    SourceInfo {
        id: id.into(),
        slug: id.into(),
        scope: SourceScope {
            scope: Scope::Project,
            owner: "p1".into(),
        },
        root_uri: format!("machine://m1/{id}"),
        local_root: None,
        privacy_patterns: Vec::new(),
        data_tree: false,
        recognizes_packages: false,
    }
}

#[async_trait]
impl IndexPort for FakeIndex {
    async fn sources(&self, _project: &str) -> Result<Vec<SourceInfo>, DiscoveryError> {
        self.check_up()?;
        self.source_reads.fetch_add(1, Ordering::SeqCst);
        let ids: HashSet<String> = self
            .files
            .lock()
            .unwrap()
            .keys()
            .map(|(s, _)| s.clone())
            .collect();
        let roots = self.local_roots.lock().unwrap();
        let privacy = self.privacy.lock().unwrap();
        let recognizing = self.recognizing.lock().unwrap();
        let scopes = self.scopes.lock().unwrap();
        let mut sources: Vec<_> = ids
            .iter()
            .map(|id| {
                let local_root = roots.get(id).cloned();
                SourceInfo {
                    root_uri: match &local_root {
                        Some(root) => format!("file://{}", root.display()),
                        None => source(id).root_uri,
                    },
                    local_root,
                    privacy_patterns: privacy.get(id).cloned().unwrap_or_default(),
                    data_tree: false,
                    recognizes_packages: recognizing.contains(id),
                    scope: scopes.get(id).cloned().unwrap_or_else(|| source(id).scope),
                    ..source(id)
                }
            })
            .collect();
        sources.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(sources)
    }

    async fn rows(&self, _project: &str) -> Result<ProjectRows, DiscoveryError> {
        self.check_up()?;
        let read = self.read_rows();
        // Read first, then held: what a held read returns predates what came meanwhile.
        self.rows_waiting.fetch_add(1, Ordering::SeqCst);
        drop(self.rows_gate.lock().await);
        self.row_reads.fetch_add(1, Ordering::SeqCst);
        Ok(read)
    }

    async fn revision(&self, _project: &str) -> Result<u64, DiscoveryError> {
        self.check_up()?;
        Ok(self.revision.load(Ordering::SeqCst) as u64)
    }

    async fn read(
        &self,
        _project: &str,
        source_id: &str,
        path: &str,
        // Not checked here: sync's connector proves the bytes (its own tests); this
        // fake serves what it holds, rewrites included.
        _decided: &DecidedRow<'_>,
    ) -> Result<Vec<u8>, DiscoveryError> {
        self.check_up()?;
        self.reads_waiting.fetch_add(1, Ordering::SeqCst);
        drop(self.read_gate.lock().await);
        self.content_reads.lock().unwrap().push(path.to_owned());
        if let Some(hook) = self.on_read.lock().unwrap().as_ref() {
            hook(path);
        }
        let key = (source_id.to_owned(), path.to_owned());
        if let Some(grown) = self.grown.lock().unwrap().get(&key) {
            return Ok(grown.clone());
        }
        self.files
            .lock()
            .unwrap()
            .get(&key)
            .cloned()
            .ok_or(DiscoveryError::NotFound)
    }

    /// Every file whose text holds `query` is one hit (ordinal 0), in path order: raw,
    /// as sync's feed answers, denied files included.
    async fn search(
        &self,
        _project: &str,
        query: &str,
        limit: u32,
    ) -> Result<Vec<RawHit>, DiscoveryError> {
        self.check_up()?;
        self.searches_waiting.fetch_add(1, Ordering::SeqCst);
        drop(self.search_gate.lock().await);
        self.searches
            .lock()
            .unwrap()
            .push((query.to_owned(), limit));
        let files = self.files.lock().unwrap();
        Ok(files
            .iter()
            .filter(|(_, content)| String::from_utf8_lossy(content).contains(query))
            .take(limit as usize)
            .map(|((source, path), content)| RawHit {
                source_slug: source.clone(),
                path: path.clone(),
                ordinal: 0,
                text: String::from_utf8_lossy(content).into_owned(),
            })
            .collect())
    }
}

/// Applies the category defaults, hides `denied` paths, and can be switched off.
#[derive(Default)]
pub struct FakeAccess {
    pub denied: Mutex<HashSet<String>>,
    pub down: std::sync::atomic::AtomicBool,
    pub calls: AtomicUsize,
    /// Every re-key request: (source id, moves).
    pub rekeys: Mutex<Vec<(String, Vec<neuralis_layout::naming::KeyMove>)>>,
    /// When set, a file (or tool) needing features the caller's token lacks is hidden.
    pub gate_features: std::sync::atomic::AtomicBool,
}

#[async_trait]
impl AccessPort for FakeAccess {
    async fn rekey_packages(
        &self,
        source_id: &str,
        moves: &[neuralis_layout::naming::KeyMove],
    ) -> Result<bool, DiscoveryError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(DiscoveryError::Unavailable("policy down".into()));
        }
        let mut rekeys = self.rekeys.lock().unwrap();
        let first = !rekeys.iter().any(|(id, _)| id == source_id);
        rekeys.push((source_id.to_owned(), moves.to_vec()));
        Ok(first)
    }

    async fn evaluate(
        &self,
        caller: &Caller,
        _conversation: Option<&str>,
        request: &EvaluationRequest,
    ) -> Result<Evaluation, DiscoveryError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if self.down.load(Ordering::SeqCst) {
            return Err(DiscoveryError::Unavailable("policy down".into()));
        }
        let denied = self.denied.lock().unwrap();
        // A package key in `denied` hides the whole package.
        let packages = (0..request.packages.len())
            .map(|index| Decision {
                index,
                code: if denied.contains(&request.packages[index].key) {
                    DecisionCode::Hidden
                } else {
                    DecisionCode::VisibleActive
                },
            })
            .collect();
        let files = request
            .files
            .iter()
            .enumerate()
            .map(|(index, f)| {
                let private = f
                    .private_owner
                    .as_deref()
                    .is_some_and(|owner| caller.agent.as_deref() != Some(owner));
                let lacks = self.gate_features.load(Ordering::SeqCst)
                    && !f
                        .required_features
                        .iter()
                        .all(|feature| caller.features.contains(feature));
                let code = if denied.contains(&f.path) || private || lacks {
                    DecisionCode::Hidden
                } else if f.category == Category::Docs {
                    DecisionCode::VisibleManual
                } else if f.default_enabled {
                    DecisionCode::VisibleActive
                } else {
                    DecisionCode::VisibleOptIn
                };
                Decision { index, code }
            })
            .collect();
        Ok(Evaluation { packages, files })
    }
}

const CALLER_SECRET: &str = "discovery-test-caller-secret-32-bytes!";

/// The gate of every test: callers signed with the test key, no service key in use.
pub fn gate() -> Gate {
    let hs256 = |secret: &str| KeySource::Hs256 {
        secret: Secret::new(secret),
    };
    let callers = Verifier::from_config(&IdentityConfig {
        keys: hs256(CALLER_SECRET),
        ..IdentityConfig::default()
    })
    .unwrap();
    let services = ServiceVerifier::from_config(&ServiceIdentityConfig {
        keys: hs256("discovery-test-service-secret-32-bytes"),
        ..ServiceIdentityConfig::default()
    })
    .unwrap();
    let verifiers = Verifiers::new(Arc::new(callers), Arc::new(services), &["owner".to_owned()]);
    Gate::new(&tables::discovery::TABLE, Arc::new(verifiers))
}

/// Discovery behind its gate, as every client reaches it.
pub fn behind_gate(discovery: Discovery) -> InProcessDiscovery {
    InProcessDiscovery::new(gate(), Arc::new(discovery))
}

/// A token signed with the test key: a member (`ada`) of project p1.
pub fn good() -> CallerToken {
    member_of("p1")
}

/// A token signed with the test key: a member (`ada`) of `project`.
pub fn member_of(project: &str) -> CallerToken {
    token("member", None, project)
}

/// A token signed with the test key for `ada` with `role` (`owner` is an
/// administrator), acting as `agent` when given, in `project`.
pub fn token(role: &str, agent: Option<&str>, project: &str) -> CallerToken {
    token_of("ada", role, agent, project)
}

/// [`token`] for the caller `subject`.
pub fn token_of(subject: &str, role: &str, agent: Option<&str>, project: &str) -> CallerToken {
    token_with_features(subject, role, agent, project, &[])
}

/// A member of `p1` whose token expires at `exp` (seconds since the Unix epoch).
pub fn token_expiring(exp: u64) -> CallerToken {
    let claims = Claims {
        sub: "ada".into(),
        role: "member".into(),
        features: Default::default(),
        agent: None,
        project: Some("p1".into()),
        conversation: None,
        platform: false,
        exp,
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    };
    let token = mint(&Secret::new(CALLER_SECRET), &claims).unwrap();
    CallerToken::new(Some(token.expose().to_owned()))
}

/// [`token_of`] carrying `features` in the token.
pub fn token_with_features(
    subject: &str,
    role: &str,
    agent: Option<&str>,
    project: &str,
    features: &[&str],
) -> CallerToken {
    let claims = Claims {
        sub: subject.into(),
        role: role.into(),
        features: features.iter().map(|f| (*f).to_owned()).collect(),
        agent: agent.map(str::to_owned),
        project: Some(project.into()),
        conversation: None,
        platform: false,
        exp: u64::MAX / 2,
        nbf: None,
        aud: Some("neuralis".into()),
        iss: None,
    };
    let token = mint(&Secret::new(CALLER_SECRET), &claims).unwrap();
    CallerToken::new(Some(token.expose().to_owned()))
}

pub struct Harness {
    pub index: Arc<FakeIndex>,
    pub access: Arc<FakeAccess>,
    pub bus: InProcessBus,
    pub discovery: InProcessDiscovery,
}

pub async fn harness() -> Harness {
    harness_with(Arc::new(EmptyCatalog)).await
}

pub async fn harness_with(
    catalog: Arc<dyn neuralis_discovery::ports::InstalledCatalog>,
) -> Harness {
    harness_of(catalog, DiscoverySettings::default()).await
}

/// [`harness`] with `settings`.
pub async fn harness_with_settings(settings: DiscoverySettings) -> Harness {
    harness_of(Arc::new(EmptyCatalog), settings).await
}

async fn harness_of(
    catalog: Arc<dyn neuralis_discovery::ports::InstalledCatalog>,
    settings: DiscoverySettings,
) -> Harness {
    let index = Arc::new(FakeIndex::default());
    let access = Arc::new(FakeAccess::default());
    let bus = InProcessBus::default();
    let inventory = InventoryShell::new(settings.inventory.settings());
    inventory.attach(bus.subscribe().await.unwrap());
    let discovery = Discovery::new(DiscoveryParts {
        index: index.clone(),
        access: access.clone(),
        catalog,
        inventory,
        settings,
    });
    Harness {
        index,
        access,
        bus,
        discovery: behind_gate(discovery),
    }
}

pub async fn publish(bus: &InProcessBus, phase: Phase, write: &str) {
    let event = InvalidationEvent {
        project: "p1".into(),
        source: "repo".into(),
        write_id: write.into(),
        revision: 0,
        phase,
        at: 0,
    };
    bus.publish(&event).await.unwrap();
}

/// The flags the sync stores: for the files they apply to.
fn content_flags(path: &str, content: &[u8]) -> neuralis_content_flags::FlagSet {
    if !neuralis_content_flags::is_checked(path) {
        return neuralis_content_flags::FlagSet::default();
    }
    neuralis_content_flags::detect(path, content)
        .into_iter()
        .collect()
}
