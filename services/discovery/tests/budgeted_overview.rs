//! `RenderOverview` with `budget_tokens` (issue 30): the caller's own decided answer,
//! fitted to the budget, over in-memory sync and policy.

#![allow(clippy::unwrap_used)] // a panic in a test is a failing test

mod fakes;

use fakes::{good, harness};
use neuralis_assembly::{O200k, TokenCount};
use neuralis_discovery::{DiscoveryApi, DiscoveryError};
use neuralis_proto::discovery::v1 as pb;

fn request(budget_tokens: u32) -> pb::RenderOverviewRequest {
    pb::RenderOverviewRequest {
        scope: Some(pb::Scope {
            project_id: "p1".into(),
            ..Default::default()
        }),
        budget_tokens,
    }
}

async fn seeded(skills: usize) -> fakes::Harness {
    let h = harness().await;
    for i in 0..skills {
        let body = format!(
            "---\nname: skill-{i:02}\ndescription: Does the {i}th thing of a long list of things \
             an agent may want to do when it reviews, ships or debugs a service\n---\nBody.\n"
        );
        h.index.put(
            "repo",
            &format!(".claude/skills/skill-{i:02}/SKILL.md"),
            &body,
        );
    }
    h
}

#[tokio::test]
async fn without_a_budget_the_overview_is_whole_and_uncounted() {
    let h = seeded(3).await;
    let whole = h
        .discovery
        .render_overview(good(), request(0))
        .await
        .unwrap();
    assert_eq!(whole.left_out, 0);
    assert_eq!(whole.tokens_used, 0);
    assert!(whole.text.contains("skill-02"));
}

#[tokio::test]
async fn a_budgeted_overview_fits_its_budget_and_counts_what_it_left_out() {
    let h = seeded(30).await;
    let whole = h
        .discovery
        .render_overview(good(), request(0))
        .await
        .unwrap();
    let whole_tokens = O200k.tokens(&whole.text);
    let budget = u32::try_from(whole_tokens / 3).unwrap();
    let fitted = h
        .discovery
        .render_overview(good(), request(budget))
        .await
        .unwrap();
    assert!(
        fitted.tokens_used <= budget,
        "{} > {budget}",
        fitted.tokens_used
    );
    assert_eq!(fitted.tokens_used as usize, O200k.tokens(&fitted.text));
    let shown = fitted.text.matches("- skill ").count();
    assert!(shown > 0, "{}", fitted.text);
    assert_eq!(fitted.left_out as usize, 30 - shown, "{}", fitted.text);
    assert!(fitted.left_out > 0);
    assert!(
        fitted
            .text
            .contains(&format!("{} more entries", fitted.left_out))
    );
}

#[tokio::test]
async fn a_budget_below_the_always_on_content_is_invalid_argument_naming_the_field() {
    let h = seeded(3).await;
    let refused = h.discovery.render_overview(good(), request(3)).await;
    match refused {
        Err(DiscoveryError::InvalidArgument { field, message }) => {
            assert_eq!(field, "budget_tokens");
            assert!(message.contains("at least"), "{message}");
        }
        other => panic!("expected INVALID_ARGUMENT, got {other:?}"),
    }
}

#[tokio::test]
async fn a_denied_entry_never_reaches_a_budgeted_overview() {
    let h = seeded(3).await;
    h.access
        .denied
        .lock()
        .unwrap()
        .insert(".claude/skills/skill-01/SKILL.md".into());
    // A budget that leaves something out: the count covers only what the caller sees.
    let fitted = h
        .discovery
        .render_overview(good(), request(60))
        .await
        .unwrap();
    assert!(!fitted.text.contains("skill-01"), "{}", fitted.text);
    let shown = fitted.text.matches("- skill ").count();
    assert_eq!(fitted.left_out as usize, 2 - shown);
}
