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
//! An installed package found in a flagged source is decided as that source's files too
//! ([`crate::recognized`]): the source's switch, scope and policy can only hide it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use neuralis_layout::Category;

use crate::candidate::CheckedBatch;
use crate::compiled::Located;
use crate::data_zone::DataZones;
use crate::package_gates::{PackageGates, pinned_default};
use crate::precedence::{self, Activation, Switches};
use crate::recognized::SourceGate;
use crate::recorder::{NoRecord, Recorder};
use crate::steps;
use crate::{
    AccessError, AccessSnapshot, Caller, CallerPolicy, CompiledPolicy, Decision, DecisionCode,
    Evaluation, EvaluationRequest, FeatureSet, FileCandidate, Origin, PackageCandidate,
    PolicyCache, UriPolicy, installed_scope,
};

mod gates;

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

/// [`evaluate`], reusing the compilations `cache` keeps of policies equal to the
/// snapshot's (every rule is still evaluated for every path).
pub fn evaluate_cached(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    request: &EvaluationRequest,
    cache: &PolicyCache,
) -> Result<Evaluation, AccessError> {
    Ok(decide_cached(caller, snapshot, &request.check()?, cache))
}

/// Decides a batch already checked (see [`EvaluationRequest::check`]): the policy service
/// checks a batch before it reads the store and decides it after, checking once.
pub fn decide(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    checked: &CheckedBatch<'_>,
) -> Evaluation {
    decide_with(caller, snapshot, checked, None, &mut NoRecord)
}

/// [`decide`], reusing the compilations `cache` keeps of policies equal to the
/// snapshot's ([`PolicyCache`]): what the policy service calls.
pub fn decide_cached(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    checked: &CheckedBatch<'_>,
    cache: &PolicyCache,
) -> Evaluation {
    decide_with(caller, snapshot, checked, Some(cache), &mut NoRecord)
}

/// The one evaluation: every decision, [`decide`]'s and [`crate::explain`]'s alike, is
/// made here; `recorder` is told each step ([`NoRecord`] keeps nothing and costs nothing).
pub fn decide_with<R: Recorder>(
    caller: &Caller,
    snapshot: &AccessSnapshot,
    checked: &CheckedBatch<'_>,
    cache: Option<&PolicyCache>,
    recorder: &mut R,
) -> Evaluation {
    let request = checked.request;
    let gates = Gates::new(caller, snapshot, request, cache);
    // What a file's decision needs of its package, looked up once per package.
    let packages: Vec<PackageGates<'_>> = request
        .packages
        .iter()
        .zip(&checked.roots)
        .map(|(package, root)| gates.of_package(package, root))
        .collect();
    let roots: Vec<DecisionCode> = request
        .packages
        .iter()
        .zip(&packages)
        .zip(&checked.roots)
        .map(|((package, of_package), root)| gates.package(package, of_package, root, recorder))
        .collect();
    let files: Vec<DecisionCode> = request
        .files
        .iter()
        .zip(checked.file_paths())
        .map(|(file, (path, real))| {
            let package = &packages[file.package];
            let root = roots[file.package];
            let under_path = gates.file(file, (path, package.start), root, package, recorder);
            match (real, &package.found_in) {
                // Found in a source: its policy reads the file's path there and its
                // real path (relative to that source), and can only hide.
                (_, Some(source)) if under_path.is_visible() => {
                    match source.reads_file(path, real, recorder) {
                        true => under_path,
                        false => DecisionCode::Hidden,
                    }
                }
                // A symlink: the stricter of the decisions under both paths wins. The
                // real path may lie outside the package root: decided from the top.
                (Some(real), None) if under_path.is_visible() => {
                    recorder.step(|| steps::real_path(real));
                    let under_real = (real, Located::ANY_PATH);
                    under_path.stricter(gates.file(file, under_real, root, package, recorder))
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
    request: &'a EvaluationRequest,
    features: FeatureSet,
    policies: HashMap<&'a str, CallerPolicy>,
    /// Installed packages whose scope has an attached policy (by package key): `None`
    /// hides the package (its scope is switched off or its policy no longer validates).
    installed: HashMap<&'a str, Option<CallerPolicy>>,
    /// The batch's data sources (agent data trees) and the package zones in them.
    data_sources: HashSet<&'a str>,
    zones: DataZones,
}

impl<'a> Gates<'a> {
    fn new(
        caller: &'a Caller,
        snapshot: &'a AccessSnapshot,
        request: &'a EvaluationRequest,
        cache: Option<&PolicyCache>,
    ) -> Self {
        // A stored policy that no longer validates contributes nothing: fail closed.
        let compile = |key: &str, policy: &UriPolicy| -> Option<CallerPolicy> {
            let compiled = match cache {
                Some(cache) => cache.compiled(key, policy).ok()?,
                None => Arc::new(CompiledPolicy::new(policy).ok()?),
            };
            Some(CallerPolicy::new(compiled, caller))
        };
        let policies = request
            .sources
            .iter()
            .filter(|header| header.scope.reaches(caller, &request.project))
            .filter_map(|header| {
                let record = snapshot
                    .sources
                    .get(&header.id)
                    .filter(|record| record.enabled)?;
                let policy = compile(&header.id, record.policy.as_ref()?)?;
                Some((header.id.as_str(), policy))
            })
            .collect();
        let installed = request
            .packages
            .iter()
            .filter(|package| package.origin == Origin::Installed)
            .filter_map(|package| {
                let scope = installed_scope(&package.key);
                let record = snapshot.sources.get(&scope)?;
                let policy = record
                    .enabled
                    .then_some(record.policy.as_ref())
                    .flatten()
                    .and_then(|policy| compile(&scope, policy));
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
            request,
            features: FeatureSet::for_caller(caller, snapshot.role_features.iter().cloned()),
            policies,
            installed,
            data_sources: request.data_sources.iter().map(String::as_str).collect(),
            zones: DataZones::new(snapshot, compile),
        }
    }

    /// The policy deciding a package's paths: `None` hides it; an installed package
    /// without an attached policy has no path gate, hence `Some(None)`.
    fn policy_of(&self, package: &PackageCandidate) -> Option<Option<&CallerPolicy>> {
        match &package.origin {
            Origin::Installed => match self.installed.get(package.key.as_str()) {
                None => Some(None),
                Some(policy) => policy.as_ref().map(Some),
            },
            Origin::Source(id) => self.policies.get(id.as_str()).map(Some),
        }
    }

    /// What deciding `package` and its files needs, looked up once: its policy, its
    /// switch, its file overrides at agent scope and along the conversation chain, and
    /// the gate of the source it was found in, if any.
    fn of_package(&self, package: &'a PackageCandidate, root: &[&str]) -> PackageGates<'_> {
        let key = package.key.as_str();
        let policy = self.policy_of(package);
        // A source package's files were checked to lie under its root; an installed
        // package's paths are relative to its root, so they are decided from the top.
        let start = match (&package.origin, policy) {
            (Origin::Source(_), Some(Some(policy))) => policy.locate(root),
            _ => Located::ANY_PATH,
        };
        let found_in = package.found_in.as_ref().map(|found_in| {
            let policy = self.policies.get(found_in.source.as_str());
            SourceGate::new(found_in, policy)
        });
        PackageGates {
            found_in,
            origin: &package.origin,
            in_data_tree: matches!(&package.origin, Origin::Source(id) if self.data_sources.contains(id.as_str())),
            hides_flagged: self.hides_flagged(package),
            policy,
            start,
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
    /// sync flags what it indexes; an installed package is not indexed and carries none,
    /// unless it was found in a source: its files are that source's indexed files.
    fn hides_flagged(&self, package: &PackageCandidate) -> bool {
        let id = match (&package.origin, &package.found_in) {
            (Origin::Source(id), _) => id,
            (Origin::Installed, Some(found_in)) => &found_in.source,
            (Origin::Installed, None) => return false,
        };
        self.snapshot
            .sources
            .get(id)
            .and_then(|record| record.policy.as_ref())
            .is_some_and(|policy| policy.hide_flagged_files)
    }

    fn package<R: Recorder>(
        &self,
        package: &PackageCandidate,
        of_package: &PackageGates<'_>,
        root: &[&str],
        recorder: &mut R,
    ) -> DecisionCode {
        let reached = of_package.policy.is_some();
        recorder.step(|| {
            let (caller, snapshot) = (self.caller, self.snapshot);
            steps::source_switch(
                caller,
                snapshot,
                self.request,
                &package.origin,
                &package.key,
                reached,
            )
        });
        let visible = reached
            && of_package.readable(root, Located::ANY_PATH, recorder)
            && self.read_by_found_in(package, of_package, recorder)
            && self.opens(package.access_feature.as_deref(), recorder)
            && self.private_to_caller(package.private_owner.as_deref(), recorder);
        match (visible, of_package.enabled) {
            (false, _) => DecisionCode::Hidden,
            (true, true) => DecisionCode::VisibleActive,
            (true, false) => DecisionCode::VisibleDisabled,
        }
    }

    /// The decision for `file` were it at `path` (its own path, or its real path, with
    /// where its descent starts): the path decides the URI policy's read; features,
    /// privacy marker and switches are the file's.
    fn file<R: Recorder>(
        &self,
        file: &FileCandidate,
        (path, start): (&[&str], Located),
        root: DecisionCode,
        package: &PackageGates<'_>,
        recorder: &mut R,
    ) -> DecisionCode {
        // A hidden root already recorded the step that hid it.
        let visible = root.is_visible()
            && self.not_flagged_away(file, package, recorder)
            && package.readable(path, start, recorder)
            && self.in_readable_zone(path, package, recorder)
            && self.holds_required(&file.required_features, recorder)
            && self.private_to_caller(file.private_owner.as_deref(), recorder);
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
        let default = pinned_default(file, package.origin);
        match (
            file.category,
            precedence::activation_with(default, switches, recorder),
        ) {
            (_, Activation::Disabled) => DecisionCode::VisibleDisabled,
            (Category::Docs, _) => {
                match file.downgraded_from {
                    Some(declared) => recorder.step(|| steps::trust_tier(declared)),
                    None => recorder.step(steps::docs),
                }
                DecisionCode::VisibleManual
            }
            (_, Activation::Active) => DecisionCode::VisibleActive,
            (_, Activation::OptIn) => DecisionCode::VisibleOptIn,
        }
    }
}
