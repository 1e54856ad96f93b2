// Only declared webhooks can be sent: `rank.exploded` is not one.

host_runtime::host_extension!("repo/host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json");

fn send(webhooks: &Webhooks, payload: &webhooks::rank_dropped::Payload) {
    let _ = webhooks.rank_exploded("ins_1", "key-1", payload);
}

fn main() {}
