//! Validation of arbitrary bytes never panics: any JSON document, at every trust tier,
//! as a manifest and as each file-first definition.
#![no_main]

use libfuzzer_sys::fuzz_target;
use neuralis_layout::Trust;
use neuralis_manifest::definitions::{command_file, hooks_file, member_file, tool_file, workflow_file};
use neuralis_manifest::validate;

fuzz_target!(|data: &[u8]| {
    let Ok(doc) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    for trust in [Trust::Untrusted, Trust::Trusted, Trust::FirstParty] {
        let v = validate(&doc, trust);
        assert_eq!(v.manifest.is_some(), v.errors.is_empty() && v.status == neuralis_manifest::Status::Loads);
    }
    let wrapped = serde_json::json!({"name": "fuzz", "neuralis": doc});
    let _ = validate(&wrapped, Trust::FirstParty);
    let _ = tool_file(&doc);
    let _ = command_file(&doc);
    let _ = hooks_file(&doc);
    let _ = member_file("fuzz", &doc);
    let _ = workflow_file("fuzz", &doc);
});
