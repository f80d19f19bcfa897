//! The gates one candidate passes or not, each telling the recorder its step: a
//! package's `accessFeature` and the source it was found in, a file's
//! `requiredFeatures`, privacy marker, data zone and content flags.

use crate::package_gates::PackageGates;
use crate::recorder::Recorder;
use crate::{FileCandidate, Origin, PackageCandidate, privacy, steps};

use super::Gates;

impl Gates<'_> {
    /// A package found in a source: that source's switch, scope and URI policy must
    /// let its folder be read too ([`crate::recognized`]).
    pub(super) fn read_by_found_in<R: Recorder>(
        &self,
        package: &PackageCandidate,
        of_package: &PackageGates<'_>,
        recorder: &mut R,
    ) -> bool {
        let (Some(found_in), Some(gate)) = (&package.found_in, &of_package.found_in) else {
            return true;
        };
        let reached = self.policies.contains_key(found_in.source.as_str());
        recorder.step(|| {
            let origin = Origin::Source(found_in.source.clone());
            let (caller, snapshot) = (self.caller, self.snapshot);
            steps::source_switch(
                caller,
                snapshot,
                self.request,
                &origin,
                &package.key,
                reached,
            )
        });
        reached && gate.reads_folder(recorder)
    }

    /// `accessFeature`: absent opens to everyone.
    pub(super) fn opens<R: Recorder>(&self, feature: Option<&str>, recorder: &mut R) -> bool {
        let held = self.features.opens(feature);
        if let Some(feature) = feature {
            recorder.step(|| steps::access_feature(self.caller, self.snapshot, feature, held));
        }
        held
    }

    /// A data-source file lies in a package's data zone: the zone's baseline
    /// (`data://<zone>`) must let it be read too (seed 002, "uriPolicies").
    pub(super) fn in_readable_zone<R: Recorder>(
        &self,
        path: &[&str],
        package: &PackageGates<'_>,
        recorder: &mut R,
    ) -> bool {
        if !package.in_data_tree {
            return true;
        }
        let readable = self.zones.readable(path);
        recorder.step(|| steps::data_zone(path, readable));
        readable
    }

    /// `requiredFeatures`: an empty list gates nothing.
    pub(super) fn holds_required<R: Recorder>(
        &self,
        required: &[String],
        recorder: &mut R,
    ) -> bool {
        let held = self.features.holds_all(required);
        if !required.is_empty() {
            recorder.step(|| steps::required_features(&self.features, required));
        }
        held
    }

    /// An agent-private subtree shows to its owner alone.
    pub(super) fn private_to_caller<R: Recorder>(
        &self,
        owner: Option<&str>,
        recorder: &mut R,
    ) -> bool {
        let visible = privacy::visible_to(owner, self.caller);
        if let Some(owner) = owner {
            recorder.step(|| steps::privacy_owner(owner, self.caller, visible));
        }
        visible
    }

    /// Content flags hide a file only where its policy says so.
    pub(super) fn not_flagged_away<R: Recorder>(
        &self,
        file: &FileCandidate,
        package: &PackageGates<'_>,
        recorder: &mut R,
    ) -> bool {
        let hidden = file.content_flagged && package.hides_flagged;
        if file.content_flagged {
            recorder.step(|| steps::content_flags(hidden));
        }
        !hidden
    }
}
