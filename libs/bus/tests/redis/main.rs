//! The Redis bus against a real Redis (NEURALIS_TEST_REDIS_URL, default the local one).

use futures::StreamExt;
mod proxy;

use neuralis_bus::{BusNotice, InvalidationBus, InvalidationEvent, Phase, RedisBus};

fn redis_url() -> String {
    std::env::var("NEURALIS_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// `host:port` of the test Redis, for the proxy in front of it.
fn redis_address() -> String {
    let url = redis_url();
    let without_scheme = url.trim_start_matches("redis://");
    let authority = without_scheme.split('/').next().unwrap_or(without_scheme);
    authority.rsplit('@').next().unwrap_or(authority).to_owned()
}

/// One channel per test so tests run in parallel without seeing each other's events.
fn unique_channel(test: &str) -> String {
    format!(
        "neuralis-test-{test}-{}-{}",
        std::process::id(),
        neuralis_bus::now_millis()
    )
}

fn event(write_id: &str, revision: u64, phase: Phase) -> InvalidationEvent {
    InvalidationEvent {
        project: "project-a".into(),
        source: "repo".into(),
        write_id: write_id.into(),
        revision,
        phase,
        at: neuralis_bus::now_millis(),
    }
}

#[tokio::test]
async fn a_subscriber_sees_start_then_finish_in_order() {
    let bus = RedisBus::connect(&redis_url(), &unique_channel("order"))
        .await
        .expect("redis reachable");
    let mut subscription = bus.subscribe().await.expect("subscribe");
    let sent = [event("w1", 4, Phase::Start), event("w1", 5, Phase::Finish)];
    for e in &sent {
        bus.publish(e).await.expect("publish");
    }
    for e in sent {
        assert_eq!(subscription.next().await, Some(BusNotice::Event(e)));
    }
}

#[tokio::test]
async fn events_on_another_channel_are_not_seen() {
    let url = redis_url();
    let mine = RedisBus::connect(&url, &unique_channel("mine"))
        .await
        .expect("redis");
    let other = RedisBus::connect(&url, &unique_channel("other"))
        .await
        .expect("redis");
    let mut subscription = mine.subscribe().await.expect("subscribe");
    let own = event("own", 1, Phase::Failed);
    other
        .publish(&event("foreign", 1, Phase::Start))
        .await
        .expect("publish");
    mine.publish(&own).await.expect("publish");
    assert_eq!(subscription.next().await, Some(BusNotice::Event(own)));
}

#[tokio::test]
async fn a_dropped_connection_is_reported_lost_then_live() {
    let channel = unique_channel("lost");
    let proxy = proxy::Proxy::start(redis_address()).await;
    let through_proxy = RedisBus::connect(&proxy.url(), &channel)
        .await
        .expect("redis");
    let direct = RedisBus::connect(&redis_url(), &channel)
        .await
        .expect("redis");
    let mut subscription = through_proxy.subscribe().await.expect("subscribe");

    proxy.cut_every_connection();
    assert_eq!(subscription.next().await, Some(BusNotice::Lost));
    assert_eq!(subscription.next().await, Some(BusNotice::Live));

    let after = event("after", 2, Phase::Start);
    direct.publish(&after).await.expect("publish");
    assert_eq!(subscription.next().await, Some(BusNotice::Event(after)));
}

#[tokio::test]
async fn a_malformed_redis_url_names_the_field() {
    let err = RedisBus::connect("not a url", "c")
        .await
        .expect_err("rejected");
    assert!(err.to_string().contains("bus.redis.url"), "{err}");
}

#[tokio::test]
async fn an_empty_channel_names_the_field() {
    let err = RedisBus::connect(&redis_url(), "")
        .await
        .expect_err("rejected");
    assert!(err.to_string().contains("bus.redis.channel"), "{err}");
}
