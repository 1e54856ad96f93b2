//! The README's rule table lists every rule, so the documentation cannot fall behind the engine.

use host_manifest::Rule;

#[test]
fn the_readme_names_every_rule() {
    let readme = include_str!("../../README.md");
    for rule in Rule::ALL {
        assert!(
            readme.contains(&format!("`{}`", rule.name())),
            "README.md does not document `{rule}`"
        );
    }
}
