// The entry point requires exactly the traits the manifest needs: a server without them is refused.

host_runtime::host_extension!("repo/host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json");

struct Server;

fn main() {
    let _ = handler(Server);
}
