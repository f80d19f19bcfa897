//! Authorization of every RPC (DESIGN.md section 5): "Every RPC of every service has
//! exactly one authorization rule, kept in one table per service ... Nothing is open by
//! default."
//!
//! - [`rule`]: a rule as data: who may call ([`Who`]) and the project it acts in
//!   ([`Binding`]);
//! - [`tables`]: one [`Table`] per service, a row per RPC;
//! - [`counters`]: calls counted by outcome, by the gate and by the permits;
//! - [`gate`]: the decision: the row of the method (none: refused), the credential
//!   verified with the verifier the row names, the role; a [`Permit`] or a [`Denial`];
//! - [`layer`]: the tower layer that asks the gate before the tonic service runs and
//!   puts the permit in the request's extensions;
//! - [`permit`]: what the handler gets; the caller only through the binding step its
//!   rule names ([`Permit::for_project`] and its siblings).
//!
//! In-process clients (the all-in-one process calling its own services) ask the same
//! gate with [`Gate::admit_bearer`], so a call is decided the same way on either path.
#![forbid(unsafe_code)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod counters;
pub mod gate;
pub mod layer;
pub mod permit;
pub mod rule;
pub mod tables;

pub use counters::Counts;
pub use gate::{Denial, Gate, Verifiers};
pub use layer::{AuthorizeLayer, Authorized};
pub use permit::{Acting, Permit, Refusal};
pub use rule::{Binding, Row, Table, Who};

/// The permit of a tonic request, taken out of its extensions. A request without one
/// never passed a gate (a service mounted without its layer): it is refused.
pub fn take_permit<T>(request: &mut tonic::Request<T>) -> Result<Permit, tonic::Status> {
    request.extensions_mut().remove::<Permit>().ok_or_else(|| {
        tracing::error!("a request reached its handler without a permit");
        neuralis_proto::details::status(
            neuralis_proto::details::Reason::PermissionDenied,
            "the call is not authorized",
        )
    })
}
