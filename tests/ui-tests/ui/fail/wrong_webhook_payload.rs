// Each webhook takes its own payload type.

host_runtime::host_extension!("repo/host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json");

fn send(webhooks: &Webhooks, payload: &webhooks::rank_collapsed::Payload) {
    let _ = webhooks.rank_dropped("ins_1", "key-1", payload);
}

fn main() {}
