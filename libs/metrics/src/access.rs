//! Access: policy decisions, refused calls and refused reads.

use super::METRICS;

/// What a policy decision let the caller see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Hidden,
    Active,
    OptIn,
    Disabled,
    Manual,
}

/// Whether a decision was about a package root or a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Candidate {
    Package,
    File,
}

/// Counts decisions (callers aggregate a batch first: one update per outcome).
pub fn policy_decisions(candidate: Candidate, decision: Decision, count: u64) {
    if count == 0 {
        return;
    }
    let kind = match candidate {
        Candidate::Package => "package",
        Candidate::File => "file",
    };
    let outcome = match decision {
        Decision::Hidden => "hidden",
        Decision::Active => "visible_active",
        Decision::OptIn => "visible_opt_in",
        Decision::Disabled => "visible_disabled",
        Decision::Manual => "visible_manual",
    };
    METRICS
        .policy_decisions
        .get_or_create(&[("kind", kind), ("outcome", outcome)])
        .inc_by(count);
}

/// What became of a call the gate did not admit as verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthOutcome {
    /// Refused UNAUTHENTICATED.
    Unauthenticated,
    /// Refused PERMISSION_DENIED at the gate.
    PermissionDenied,
    /// Served without a verified caller: the empty answer the seeds require.
    Unverified,
    /// A verified caller a permit's binding step refused (another project, ...).
    Refused,
}

/// Why: a closed vocabulary, never the caller's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthReason {
    /// No credential at all.
    MissingCredential,
    /// A credential that does not verify (forged, expired, another audience).
    InvalidCredential,
    /// A caller token where a service credential is needed, or the reverse.
    WrongCredentialKind,
    /// A verified caller whose role is not an administrator's.
    NotAdministrator,
    /// A method the service does not serve.
    UnknownMethod,
    /// Another project, conversation or source than the caller's.
    Binding,
}

/// Counts one refusal (or unverified call) of `service`, a name from the compiled
/// contract's list.
pub fn auth_refusal(service: &'static str, outcome: AuthOutcome, reason: AuthReason) {
    let outcome = match outcome {
        AuthOutcome::Unauthenticated => "unauthenticated",
        AuthOutcome::PermissionDenied => "permission_denied",
        AuthOutcome::Unverified => "unverified",
        AuthOutcome::Refused => "refused",
    };
    let reason = match reason {
        AuthReason::MissingCredential => "missing_credential",
        AuthReason::InvalidCredential => "invalid_credential",
        AuthReason::WrongCredentialKind => "wrong_credential_kind",
        AuthReason::NotAdministrator => "not_administrator",
        AuthReason::UnknownMethod => "unknown_method",
        AuthReason::Binding => "binding",
    };
    METRICS
        .auth_refusals
        .get_or_create(&[
            ("service", service),
            ("outcome", outcome),
            ("reason", reason),
        ])
        .inc();
}

/// Why sync refused a caller-facing read of a decided file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadRefusal {
    /// A plain file whose bytes are not the ones decided on (changed since its row).
    Changed,
    /// Missing, a link, not a regular file, too large, or outside the root.
    Unreadable,
    /// The reader named no decided content (fingerprint 0).
    Undecided,
}

/// One caller-facing read refused by sync.
pub fn decided_read_refused(reason: ReadRefusal) {
    let reason = match reason {
        ReadRefusal::Changed => "changed",
        ReadRefusal::Unreadable => "unreadable",
        ReadRefusal::Undecided => "undecided",
    };
    METRICS
        .decided_reads_refused
        .get_or_create(&[("reason", reason)])
        .inc();
}
