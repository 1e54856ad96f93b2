//! The local install: who the local host's calls come from. Install `ins_dev_1` of organization
//! `org_dev_1` on project `prj_dev_1` (no project for an `organization` install), granted the scopes
//! the manifest declares, with development credentials, signed with the well-known development key
//! ([`host_runtime::testing::TestHost::development`]).

use host_manifest::Manifest;
use host_manifest::model::{AuthMethod, InstallScope};
use host_runtime::testing::TestHost;
use serde_json::{Map, Value, json};

use super::{Fail, InstallArgs, listed, object_arg};
use host_manifest::closest;

/// The default install id.
pub(crate) const INSTALL: &str = "ins_dev_1";
/// The install's organization.
pub(crate) const ORGANIZATION: &str = "org_dev_1";
/// The install's project (project installs only).
pub(crate) const PROJECT: &str = "prj_dev_1";

/// The local install, ready to mint tokens and build bodies.
pub(crate) struct Local {
    /// Mints tokens and builds bodies.
    pub host: TestHost,
    /// The `documents` object sent in bodies.
    pub documents: Value,
    /// The `context` of call bodies (`call --context`), when not the test host's default.
    pub context: Option<Value>,
}

impl Local {
    /// The install from the manifest and the command-line overrides.
    pub(crate) fn new(manifest: &Manifest, args: &InstallArgs) -> Result<Local, Fail> {
        let mut host = TestHost::development(manifest.id.clone());
        host.install_id = match &args.install {
            Some(id) if id.trim().is_empty() => {
                return Err(Fail::usage(
                    "`--install` needs an install id, such as ins_dev_2",
                ));
            }
            Some(id) => id.trim().to_owned(),
            None => INSTALL.to_owned(),
        };
        host.organization_id = ORGANIZATION.to_owned();
        host.project_id = match manifest.install_scope {
            InstallScope::Project => Some(PROJECT.to_owned()),
            InstallScope::Organization => None,
        };
        host.scopes = match &args.scopes {
            Some(list) => parse_scopes(list)?,
            None => manifest.scopes.iter().map(|s| s.key.clone()).collect(),
        };
        host.credentials = match &args.credentials {
            Some(text) => object_arg("--credentials", text)?,
            None => default_credentials(manifest),
        };
        let documents = match &args.documents {
            Some(text) => object_arg("--documents", text)?,
            None => json!({}),
        };
        Ok(Local {
            host,
            documents,
            context: None,
        })
    }

    /// The shared call body with `input`, carrying this install's documents.
    pub(crate) fn call_body(&self, input: Value) -> Value {
        let mut body = self.host.call_body(input);
        body["documents"] = self.documents.clone();
        if let Some(context) = &self.context {
            body["context"] = context.clone();
        }
        body
    }

    /// An event delivery body: `install`, `context`, `event { name, payload }`, `credentials`,
    /// `documents`.
    pub(crate) fn event_body(&self, name: &str, payload: Value) -> Value {
        let mut body = self.host.event_body(name, payload);
        body["documents"] = self.documents.clone();
        body
    }

    /// `Bearer <fresh token>`.
    pub(crate) fn authorization(&self) -> String {
        format!("Bearer {}", self.host.token())
    }
}

/// `a,b` -> the scope keys, each checked against the catalogue; an empty string grants none.
fn parse_scopes(list: &str) -> Result<Vec<String>, Fail> {
    let keys: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .collect();
    for key in &keys {
        if host_manifest::catalogue::scope(key).is_none() {
            let all = host_manifest::catalogue::SCOPES.iter().map(|s| s.key);
            let hint = match closest(key, all.clone()) {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!("scope keys are {}", listed(all)),
            };
            return Err(Fail::usage(format!(
                "`--scopes`: `{key}` is not a scope key; {hint}"
            )));
        }
    }
    Ok(keys.into_iter().map(str::to_owned).collect())
}

/// Development credentials: `dev-<name>` for every required connector auth field (optional
/// ones left out), and for `method: "oauth"` a development access token with the provider scopes.
pub(crate) fn default_credentials(manifest: &Manifest) -> Value {
    let mut credentials = Map::new();
    let Some(auth) = manifest
        .contributes
        .connector
        .as_ref()
        .and_then(|c| c.auth.as_ref())
    else {
        return Value::Object(credentials);
    };
    for field in auth.fields.iter().filter(|f| f.required) {
        credentials.insert(field.name.clone(), json!(format!("dev-{}", field.name)));
    }
    if auth.method == AuthMethod::Oauth {
        let scopes = auth
            .oauth
            .as_ref()
            .map(|o| o.scopes.clone())
            .unwrap_or_default();
        credentials.insert(
            "oauth".to_owned(),
            json!({ "accessToken": "dev-access-token", "expiresAt": null, "scopes": scopes }),
        );
    }
    Value::Object(credentials)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(connector: Value) -> Manifest {
        let mut m = json!({
            "id": "keyword-tracker", "name": "Keyword Tracker",
            "description": "Daily keyword ranks for apps.", "icon": "icon.png",
            "category": "market_data", "sdk": "^2.0.0", "visibility": "private",
            "installScope": "project", "scopes": [ { "key": "metrics:write" } ],
            "contributes": {}
        });
        m["contributes"]["connector"] = connector;
        serde_json::from_value(m).unwrap()
    }

    #[test]
    fn credentials_fill_required_fields_and_oauth() {
        let m = manifest(json!({ "auth": { "method": "oauth",
            "fields": [
                { "name": "region", "label": "Region", "type": "text", "required": true },
                { "name": "team", "label": "Team", "type": "text", "required": false }
            ],
            "oauth": { "authorizationUrl": "https://a.example/auth", "tokenUrl": "https://a.example/token",
                       "scopes": ["read"] } } }));
        assert_eq!(
            default_credentials(&m),
            json!({ "region": "dev-region",
                    "oauth": { "accessToken": "dev-access-token", "expiresAt": null, "scopes": ["read"] } })
        );
        assert_eq!(default_credentials(&manifest(json!({}))), json!({}));
    }

    #[test]
    fn scopes_are_checked_and_may_be_empty() {
        assert_eq!(parse_scopes("").ok(), Some(vec![]));
        assert_eq!(
            parse_scopes("ai:tools, projects:read").ok(),
            Some(vec!["ai:tools".to_owned(), "projects:read".to_owned()])
        );
        let e = parse_scopes("ai:tool").err().map(|f| f.message);
        assert!(e.is_some_and(|m| m.contains("did you mean `ai:tools`?")));
    }

    #[test]
    fn the_local_install_defaults_and_overrides() {
        let m = manifest(json!({}));
        let local = Local::new(&m, &InstallArgs::default()).ok();
        let local = local.as_ref().map(|l| &l.host);
        assert_eq!(local.map(|h| h.install_id.as_str()), Some(INSTALL));
        assert_eq!(
            local.map(|h| h.scopes.clone()),
            Some(vec!["metrics:write".to_owned()])
        );
        let args = InstallArgs {
            install: Some("ins_other".into()),
            scopes: Some(String::new()),
            documents: Some(r#"{"settings":null}"#.into()),
            ..InstallArgs::default()
        };
        let other = Local::new(&m, &args).ok();
        assert_eq!(
            other
                .as_ref()
                .map(|l| l.call_body(json!({}))["documents"].clone()),
            Some(json!({ "settings": null }))
        );
        assert_eq!(other.map(|l| l.host.scopes.len()), Some(0));
        let bad = InstallArgs {
            documents: Some("[]".into()),
            ..InstallArgs::default()
        };
        assert!(Local::new(&m, &bad).is_err());
    }
}
