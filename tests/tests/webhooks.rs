//! The generated `Webhooks` sender checks each payload against the manifest before signing: what the
//! Rust type cannot hold (a `pattern`, a blank `why`) is refused with the pointer, and nothing is sent.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use host_runtime::EventSender;
use host_runtime::webhook::{Secret, WebhookError, verify_webhook};
use host_sdk_tests::{Webhooks, webhooks};

const SECRET: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";

fn hooks() -> Webhooks {
    Webhooks::new(
        EventSender::new(
            "https://events.host.example/v1",
            SECRET,
            host_runtime::outbox::MemoryOutbox::new(),
        )
        .unwrap(),
    )
}

fn drop_of(why: &str, country: &str) -> webhooks::rank_dropped::Payload {
    webhooks::rank_dropped::Payload {
        why: why.parse().unwrap(),
        country: Some(country.to_owned()),
        keyword: Some("notes".to_owned()),
        previous: None,
        current: None,
    }
}

#[test]
fn a_payload_the_host_would_refuse_is_not_signed() {
    // The type admits any string; the manifest's `^[A-Z]{2}$` does not.
    let refused = hooks()
        .rank_dropped("ins_1", "drop-1", &drop_of("Notes fell to 9", "de"))
        .unwrap_err();
    let WebhookError::PayloadInvalid(e) = &refused else {
        panic!("{refused:?}")
    };
    assert_eq!((e.event, e.pointer.as_str()), ("rank.dropped", "/country"));
    assert!(refused.to_string().contains("not sent"), "{refused}");
    // `minLength: 1` admits a space; an alert needs words.
    let refused = hooks()
        .rank_dropped("ins_1", "drop-2", &drop_of(" ", "DE"))
        .unwrap_err();
    assert!(
        matches!(&refused, WebhookError::PayloadInvalid(e) if e.pointer == "/why"),
        "{refused:?}"
    );
}

#[test]
fn a_valid_payload_is_signed_with_its_occurred_at() {
    let event = hooks()
        .rank_dropped("ins_1", "drop-3", &drop_of("Notes fell to 9", "DE"))
        .unwrap()
        .with_occurred_at("2026-11-20T08:00:00Z");
    let request = event.to_request().unwrap();
    let body: serde_json::Value = serde_json::from_slice(request.body()).unwrap();
    assert_eq!(body["event"], webhooks::rank_dropped::EVENT);
    assert_eq!(body["occurredAt"], "2026-11-20T08:00:00Z");
    assert_eq!(body["payload"]["country"], "DE");
    let header = |name: &str| request.headers()[name].to_str().unwrap().to_owned();
    assert!(
        verify_webhook(
            &Secret::parse(SECRET).unwrap(),
            "drop-3",
            &header("webhook-timestamp"),
            &header("webhook-signature"),
            request.body(),
            std::time::SystemTime::now(),
        )
        .is_ok()
    );
}
