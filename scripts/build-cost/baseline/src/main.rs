//! `POST /host/tools/greet` by hand: the install token verified with jsonwebtoken against an inline
//! key set, the input checked against its JSON Schema, the answer written as JSON.

use std::sync::Arc;

use axum::Json;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, jwk::JwkSet};
use serde_json::{Value, json};

struct State {
    key: DecodingKey,
    validation: Validation,
    input: jsonschema::Validator,
}

async fn greet(
    axum::extract::State(state): axum::extract::State<Arc<State>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let refuse = |status: StatusCode, code: &str| (status, Json(json!({ "error": { "code": code } })));
    let token = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let Some(token) = token else {
        return refuse(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    };
    if jsonwebtoken::decode::<Value>(token, &state.key, &state.validation).is_err() {
        return refuse(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    }
    let input = body.get("input").cloned().unwrap_or(json!({}));
    if !state.input.is_valid(&input) {
        return refuse(StatusCode::UNPROCESSABLE_ENTITY, "INPUT_INVALID");
    }
    let name = input["name"].as_str().unwrap_or_default();
    (StatusCode::OK, Json(json!({ "value": format!("Hello, {name}!") })))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let jwks: JwkSet = serde_json::from_str(&std::env::var("HOST_JWKS").unwrap_or_default())
        .map_err(std::io::Error::other)?;
    let jwk = jwks.keys.first().ok_or_else(|| std::io::Error::other("no key"))?;
    let key = DecodingKey::from_jwk(jwk).map_err(std::io::Error::other)?;
    let mut validation = Validation::new(Algorithm::EdDSA);
    validation.set_audience(&["hello-extension"]);
    let schema = json!({
        "type": "object",
        "properties": { "name": { "type": "string", "minLength": 1 } },
        "required": ["name"],
        "additionalProperties": false
    });
    let input = jsonschema::validator_for(&schema).map_err(std::io::Error::other)?;
    let state = Arc::new(State { key, validation, input });
    let app = axum::Router::new()
        .route("/host/tools/greet", post(greet))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8788").await?;
    axum::serve(listener, app).await
}
