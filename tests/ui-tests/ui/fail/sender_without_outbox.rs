// Code written against the release before the outbox became a required argument: a sender built
// without a store must not compile (it used to, and refused every event at run time).
fn main() {
    let sender = host_runtime::EventSender::new(
        "https://host.example/v1/events",
        host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET,
    )
    .expect("a whsec_ secret")
    .with_outbox(host_runtime::outbox::MemoryOutbox::new());
    let _ = sender;
}
