//! Evaluation of one batch for one caller: every gate, in one place.
//!
//! A package root is visible when its source is known, enabled, has a persisted policy,
//! is reached by the caller's scope and grants `read` on the root, and when the caller
//! holds its `accessFeature` and passes its privacy marker. A member file is visible when
//! its package is, the policy grants `read` on the file, the caller holds every
//! `requiredFeatures` entry and passes its privacy marker. A package whose files in the
//! batch are all hidden is hidden too ("a denied subtree's package is simply absent").
//! Visible files then go through the precedence predicate; docs are listed, never active.
//! A file reached through an in-root symlink is decided under its path and under its real
//! path, and the stricter decision wins ([`DecisionCode::stricter`]), so a link cannot
//! show what the policy denies where the file really lies. A file with content flags is
//! hidden when its policy says so (`hide_flagged_files`), decided here like any gate.

use std::collections::HashMap;

use neuralis_layout::{Category, default_state};

use crate::candidate::CheckedBatch;
use crate::overrides::PackageOverrides;
use crate::precedence::{self, Activation, Switches};
use crate::{
    AccessError, AccessSnapshot, Caller, CallerPolicy, CompiledPolicy, Decision, DecisionCode,
    Evaluation, EvaluationRequest, FeatureSet, FileCandidate, Origin, PackageCandidate,
    installed_scope, privacy,
};

/// Decides every candidate of `request` for `caller` against `snapshot`. Each decision
/// depends only on its candidate (and, for a package, on the set of its files), so the
/// answer does not depend on the order of the candidates.
pub fn evaluate(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    request: &EvaluationRequest,
) -> Result<Evaluation, AccessError> {
    Ok(decide(caller, snapshot, &request.check()?))
}

/// Decides a batch already checked (see [`EvaluationRequest::check`]): the policy service
/// checks a batch before it reads the store and decides it after, checking once.
pub fn decide(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    checked: &CheckedBatch<'_>,
) -> Evaluation {
    let request = checked.request;
    let gates = Gates::new(caller, snapshot, request);
    // What a file's decision needs of its package, looked up once per package.
    let packages: Vec<PackageGates<'_>> = request
        .packages
        .iter()
        .map(|package| gates.of_package(package))
        .collect();
    let roots: Vec<DecisionCode> = request
        .packages
        .iter()
        .zip(&packages)
        .zip(&checked.roots)
        .map(|((package, of_package), root)| gates.package(package, of_package, root))
        .collect();
    let files: Vec<DecisionCode> = request
        .files
        .iter()
        .zip(&checked.files)
        .map(|(file, paths)| {
            let package = &packages[file.package];
            let root = roots[file.package];
            let under_path = gates.file(file, &paths.path, root, package);
            match &paths.real {
                // A symlink: the stricter of the decisions under both paths wins.
                Some(real) if under_path.is_visible() => {
                    under_path.stricter(gates.file(file, real, root, package))
                }
                _ => under_path,
            }
        })
        .collect();
    Evaluation {
        packages: hide_emptied_packages(roots, &request.files, &files),
        files: numbered(files),
    }
}

fn numbered(codes: Vec<DecisionCode>) -> Vec<Decision> {
    codes
        .into_iter()
        .enumerate()
        .map(|(index, code)| Decision { index, code })
        .collect()
}

/// Hides every package that has files in the batch and none of them visible.
fn hide_emptied_packages(
    mut roots: Vec<DecisionCode>,
    files: &[FileCandidate],
    codes: &[DecisionCode],
) -> Vec<Decision> {
    let mut any_file = vec![false; roots.len()];
    let mut any_visible = vec![false; roots.len()];
    for (file, code) in files.iter().zip(codes) {
        any_file[file.package] = true;
        any_visible[file.package] |= code.is_visible();
    }
    for (at, root) in roots.iter_mut().enumerate() {
        if any_file[at] && !any_visible[at] {
            *root = DecisionCode::Hidden;
        }
    }
    numbered(roots)
}

/// The per-request state: the caller's features and each reachable source's policy,
/// compiled once for this caller.
struct Gates<'a> {
    caller: &'a Caller,
    snapshot: &'a AccessSnapshot,
    features: FeatureSet,
    policies: HashMap<&'a str, CallerPolicy<'a>>,
    /// Installed packages whose scope has an attached policy (by package key): `None`
    /// hides the package (its scope is switched off or its policy no longer validates).
    installed: HashMap<&'a str, Option<CallerPolicy<'a>>>,
}

impl<'a> Gates<'a> {
    fn new(
        caller: &'a Caller,
        snapshot: &'a AccessSnapshot,
        request: &'a EvaluationRequest,
    ) -> Self {
        let policies = request
            .sources
            .iter()
            .filter(|header| header.scope.reaches(caller, &request.project))
            .filter_map(|header| {
                let record = snapshot
                    .sources
                    .get(&header.id)
                    .filter(|record| record.enabled)?;
                // A stored policy that no longer validates contributes nothing: fail closed.
                let compiled = CompiledPolicy::new(record.policy.as_ref()?).ok()?;
                Some((header.id.as_str(), compiled.for_caller(caller)))
            })
            .collect();
        let installed = request
            .packages
            .iter()
            .filter(|package| package.origin == Origin::Installed)
            .filter_map(|package| {
                let record = snapshot.sources.get(&installed_scope(&package.key))?;
                let policy = record
                    .enabled
                    .then_some(record.policy.as_ref())
                    .flatten()
                    .and_then(|policy| CompiledPolicy::new(policy).ok())
                    .map(|compiled| compiled.for_caller(caller));
                // A scope switched on with no policy gates nothing, as before attach.
                if record.enabled && record.policy.is_none() {
                    return None;
                }
                Some((package.key.as_str(), policy))
            })
            .collect();
        Gates {
            caller,
            snapshot,
            features: FeatureSet::for_caller(caller, snapshot.role_features.iter().cloned()),
            policies,
            installed,
        }
    }

    /// The policy deciding a package's paths: `None` hides it; an installed package
    /// without an attached policy has no path gate, hence `Some(None)`.
    fn policy_of(&self, package: &PackageCandidate) -> Option<Option<&CallerPolicy<'a>>> {
        match &package.origin {
            Origin::Installed => match self.installed.get(package.key.as_str()) {
                None => Some(None),
                Some(policy) => policy.as_ref().map(Some),
            },
            Origin::Source(id) => self.policies.get(id.as_str()).map(Some),
        }
    }

    /// What deciding `package` and its files needs, looked up once: its policy, its
    /// switch, and its file overrides at agent scope and along the conversation chain.
    fn of_package(&self, package: &'a PackageCandidate) -> PackageGates<'_> {
        let key = package.key.as_str();
        let policy = self.policy_of(package);
        PackageGates {
            origin: &package.origin,
            hides_flagged: self.hides_flagged(package),
            policy,
            enabled: self.snapshot.package_enabled(key),
            agent: self.snapshot.agent_overrides.package(key),
            conversation: self
                .snapshot
                .conversation_chain
                .iter()
                .filter_map(|overrides| overrides.package(key))
                .collect(),
        }
    }

    /// Whether the policy deciding a source package's paths hides flagged files. The
    /// sync flags what it indexes; an installed package is not indexed and carries none.
    fn hides_flagged(&self, package: &PackageCandidate) -> bool {
        let Origin::Source(id) = &package.origin else {
            return false;
        };
        self.snapshot
            .sources
            .get(id)
            .and_then(|record| record.policy.as_ref())
            .is_some_and(|policy| policy.hide_flagged_files)
    }

    fn package(
        &self,
        package: &PackageCandidate,
        of_package: &PackageGates<'_>,
        root: &[&str],
    ) -> DecisionCode {
        let visible = of_package.readable(root)
            && self.features.opens(package.access_feature.as_deref())
            && privacy::visible_to(package.private_owner.as_deref(), self.caller);
        match (visible, of_package.enabled) {
            (false, _) => DecisionCode::Hidden,
            (true, true) => DecisionCode::VisibleActive,
            (true, false) => DecisionCode::VisibleDisabled,
        }
    }

    /// The decision for `file` were it at `path` (its own path, or its real path): the
    /// path decides the URI policy's read; features, privacy marker and switches are the
    /// file's.
    fn file(
        &self,
        file: &FileCandidate,
        path: &[&str],
        root: DecisionCode,
        package: &PackageGates<'_>,
    ) -> DecisionCode {
        let visible = root.is_visible()
            && !(file.content_flagged && package.hides_flagged)
            && package.readable(path)
            && self.features.holds_all(&file.required_features)
            && privacy::visible_to(file.private_owner.as_deref(), self.caller);
        if !visible {
            return DecisionCode::Hidden;
        }
        let switches = Switches {
            package_enabled: package.enabled,
            agent: package.agent.and_then(|set| set.get(&file.path)),
            conversation: package
                .conversation
                .iter()
                .find_map(|set| set.get(&file.path)),
        };
        match (
            file.category,
            precedence::activation(pinned_default(file, package.origin), switches),
        ) {
            (_, Activation::Disabled) => DecisionCode::VisibleDisabled,
            (Category::Docs, _) => DecisionCode::VisibleManual,
            (_, Activation::Active) => DecisionCode::VisibleActive,
            (_, Activation::OptIn) => DecisionCode::VisibleOptIn,
        }
    }
}

/// One package's share of the per-request state.
struct PackageGates<'g> {
    origin: &'g Origin,
    /// Its policy hides files with content flags.
    hides_flagged: bool,
    /// The policy deciding its paths: `None` hides it; an installed package has no URI
    /// policy, hence `Some(None)`.
    policy: Option<Option<&'g CallerPolicy<'g>>>,
    enabled: bool,
    agent: Option<&'g PackageOverrides>,
    /// Child first, only the conversations that switch a file of this package.
    conversation: Vec<&'g PackageOverrides>,
}

impl PackageGates<'_> {
    fn readable(&self, path: &[&str]) -> bool {
        match self.policy {
            None => false,
            Some(None) => true,
            Some(Some(policy)) => policy.can_read(path),
        }
    }
}

/// A source file's default is server-pinned (seed 000: "syncing a repository must never
/// silently change agent behavior"): the candidate's default can narrow it, never widen
/// it. An installed package's default is the catalog's.
fn pinned_default(file: &FileCandidate, origin: &Origin) -> bool {
    match origin {
        Origin::Installed => file.default_enabled,
        Origin::Source(_) => file.default_enabled && default_state(file.category, file.identity).0,
    }
}
