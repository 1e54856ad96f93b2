// An approved action call cannot be made up by the vendor's code: only the runtime builds one.

host_runtime::host_extension!("repo/host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json");

fn forge(call: host_runtime::Call<actions::save_rank_insight::Input, Credentials, Documents>) -> Approved<actions::save_rank_insight::Input> {
    host_runtime::Approved { call }
}

fn main() {}
