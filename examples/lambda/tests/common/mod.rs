//! What the Lambda example's tests share: a DynamoDB emulator (moto's server mode, a real process
//! we did not write; host-test-support starts it), a stand-in for the Lambda Runtime API the
//! function polls, and the function binary started as Lambda starts it.

#![allow(dead_code, clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use serde_json::{Value, json};
use tokio::sync::{Notify, oneshot};

/// moto's DynamoDB emulator, for the deduplication table (skipped without moto locally, failing
/// in CI).
pub(crate) use host_test_support::DynamoDbEmulator as Moto;

/// Starts [`Moto`], or `None` where it is not installed (outside CI).
pub(crate) fn start_moto() -> Option<Moto> {
    Moto::start_or_skip()
}

/// A deduplication store on `table` in the emulator.
pub(crate) fn store(moto: &Moto, table: &str) -> host_runtime::dedupe::DynamoDbDedupe {
    host_runtime::dedupe::DynamoDbDedupe::from_vars(table, |k| moto.var(k)).unwrap()
}

/// What the function answered to one invocation.
#[derive(Debug, Clone)]
pub(crate) enum Outcome {
    /// `POST /runtime/invocation/{id}/response` with this body.
    Response(Value),
    /// `POST /runtime/invocation/{id}/error` with this body.
    Error(Value),
}

#[derive(Default)]
struct State {
    queue: VecDeque<(String, Value)>,
    answers: HashMap<String, oneshot::Sender<Outcome>>,
    /// `GET .../next` requests waiting for an invocation.
    polling: usize,
    init_errors: Vec<Value>,
    next_id: u64,
    /// When the first `GET .../next` arrived: the end of the function's init.
    first_poll: Option<Instant>,
}

/// A stand-in for the Lambda Runtime API (`AWS_LAMBDA_RUNTIME_API`): hands queued invocations to
/// whichever function process asks for the next one, and collects their answers.
#[derive(Clone)]
pub(crate) struct RuntimeApi {
    state: Arc<Mutex<State>>,
    queued: Arc<Notify>,
    changed: Arc<Notify>,
    /// `127.0.0.1:<port>`, the value of `AWS_LAMBDA_RUNTIME_API`.
    pub addr: SocketAddr,
}

impl RuntimeApi {
    pub(crate) async fn start() -> RuntimeApi {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let api = RuntimeApi {
            state: Arc::default(),
            queued: Arc::default(),
            changed: Arc::default(),
            addr: listener.local_addr().unwrap(),
        };
        let server = api.clone();
        tokio::spawn(host_test_support::http::serve(listener, move |request| {
            let api = server.clone();
            async move { api.serve(request).await }
        }));
        api
    }

    async fn serve(&self, request: hyper::Request<Incoming>) -> hyper::Response<Full<Bytes>> {
        let path = request.uri().path().to_owned();
        let method = request.method().clone();
        let body = request
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let answer = |status: u16, body: Value| {
            hyper::Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .body(Full::new(Bytes::from(body.to_string())))
                .unwrap()
        };
        let rest = path.strip_prefix("/2018-06-01/runtime/").unwrap_or("");
        match (
            method.as_str(),
            rest.split('/').collect::<Vec<_>>().as_slice(),
        ) {
            ("GET", ["invocation", "next"]) => {
                let (id, event) = self.next().await;
                let deadline = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_millis()
                    + 30_000;
                hyper::Response::builder()
                    .status(200)
                    .header("content-type", "application/json")
                    .header("Lambda-Runtime-Aws-Request-Id", &id)
                    .header("Lambda-Runtime-Deadline-Ms", deadline.to_string())
                    .header(
                        "Lambda-Runtime-Invoked-Function-Arn",
                        "arn:aws:lambda:us-east-1:123456789012:function:keyword-tracker",
                    )
                    .header(
                        "Lambda-Runtime-Trace-Id",
                        "Root=1-67a1b2c3-0a1b2c3d4e5f6a7b8c9d0e1f",
                    )
                    .body(Full::new(Bytes::from(event.to_string())))
                    .unwrap()
            }
            ("POST", ["invocation", id, kind @ ("response" | "error")]) => {
                let outcome = if *kind == "response" {
                    Outcome::Response(json)
                } else {
                    Outcome::Error(json)
                };
                let waiting = self.state.lock().unwrap().answers.remove(*id);
                match waiting {
                    Some(tx) => {
                        let _ = tx.send(outcome);
                        answer(202, json!({ "status": "OK" }))
                    }
                    None => answer(
                        400,
                        json!({ "errorMessage": "unknown request id", "errorType": "InvalidRequestID" }),
                    ),
                }
            }
            ("POST", ["init", "error"]) => {
                self.state.lock().unwrap().init_errors.push(json);
                answer(202, json!({ "status": "OK" }))
            }
            _ => answer(
                404,
                json!({ "errorMessage": format!("no route {method} {path}") }),
            ),
        }
    }

    async fn next(&self) -> (String, Value) {
        {
            let mut state = self.state.lock().unwrap();
            state.polling += 1;
            state.first_poll.get_or_insert_with(Instant::now);
            drop(state);
            self.changed.notify_waiters();
        }
        loop {
            let notified = self.queued.notified();
            {
                let mut state = self.state.lock().unwrap();
                if let Some(next) = state.queue.pop_front() {
                    state.polling -= 1;
                    return next;
                }
            }
            notified.await;
        }
    }

    /// Queues `event` for the next process that polls; its answer, once given.
    pub(crate) fn invoke(&self, event: Value) -> oneshot::Receiver<Outcome> {
        let (tx, rx) = oneshot::channel();
        let mut state = self.state.lock().unwrap();
        state.next_id += 1;
        let id = format!("8476a536-e9f4-11e8-9739-{:012}", state.next_id);
        state.answers.insert(id.clone(), tx);
        state.queue.push_back((id, event));
        drop(state);
        self.queued.notify_waiters();
        rx
    }

    /// Invokes and waits (at most 30 s) for the answer.
    pub(crate) async fn call(&self, event: Value) -> Outcome {
        tokio::time::timeout(Duration::from_secs(30), self.invoke(event))
            .await
            .expect("the function did not answer within 30 s")
            .expect("the stand-in dropped the invocation")
    }

    /// Waits until `n` processes are polling for their next invocation.
    pub(crate) async fn until_polling(&self, n: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let changed = self.changed.notified();
            if self.state.lock().unwrap().polling >= n {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{n} function processes did not poll within 30 s"
            );
            let _ = tokio::time::timeout(Duration::from_millis(100), changed).await;
        }
    }

    /// When a function process first asked for an invocation.
    pub(crate) fn first_poll(&self) -> Option<Instant> {
        self.state.lock().unwrap().first_poll
    }

    /// The init errors the function reported.
    pub(crate) fn init_errors(&self) -> Vec<Value> {
        self.state.lock().unwrap().init_errors.clone()
    }
}

/// Starts the example function as Lambda does: the Runtime API's address and the function's
/// variables in the environment, plus `env`; stderr (the function's log) captured.
pub(crate) fn start_function(api: &RuntimeApi, env: &[(&str, String)]) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_keyword-tracker-lambda"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AWS_LAMBDA_RUNTIME_API", api.addr.to_string())
        .env("AWS_LAMBDA_FUNCTION_NAME", "keyword-tracker")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
        .env("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/keyword-tracker")
        .env(
            "AWS_LAMBDA_LOG_STREAM_NAME",
            "2026/11/25/[$LATEST]0123456789abcdef",
        )
        .env("_HANDLER", "bootstrap")
        .env("LAMBDA_TASK_ROOT", "/var/task")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    command.spawn().expect("the function binary starts")
}

/// Stops `child` and returns what it logged (stdout and stderr).
pub(crate) fn stop(mut child: Child) -> String {
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A Function URL invocation (an HTTP API payload v2 event) of `method path`.
pub(crate) fn function_url_event(
    method: &str,
    path: &str,
    headers: &[(&str, String)],
    body: Option<&str>,
) -> Value {
    let mut headers_json = json!({
        "host": "v3k5n7m9q1w2e4r6t8y0u2i4o6p8a1s3.lambda-url.us-east-1.on.aws",
        "x-forwarded-proto": "https",
    });
    for (name, value) in headers {
        headers_json[name.to_ascii_lowercase()] = json!(value);
    }
    json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": "",
        "headers": headers_json,
        "requestContext": {
            "accountId": "anonymous",
            "apiId": "v3k5n7m9q1w2e4r6t8y0u2i4o6p8a1s3",
            "domainName": "v3k5n7m9q1w2e4r6t8y0u2i4o6p8a1s3.lambda-url.us-east-1.on.aws",
            "domainPrefix": "v3k5n7m9q1w2e4r6t8y0u2i4o6p8a1s3",
            "http": { "method": method, "path": path, "protocol": "HTTP/1.1",
                      "sourceIp": "203.0.113.20", "userAgent": "host-extension-caller/2.0" },
            "requestId": "1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a",
            "routeKey": "$default",
            "stage": "$default",
            "time": "25/Nov/2026:10:00:00 +0000",
            "timeEpoch": 1795600000000u64
        },
        "body": body,
        "isBase64Encoded": false
    })
}

/// The status and JSON body of a Function URL response.
pub(crate) fn http_answer(outcome: &Outcome) -> (u16, Value) {
    let Outcome::Response(r) = outcome else {
        panic!("the function failed the invocation: {outcome:?}");
    };
    let status = u16::try_from(r["statusCode"].as_u64().unwrap_or(0)).unwrap_or(0);
    let body = r["body"]
        .as_str()
        .and_then(|b| serde_json::from_str(b).ok())
        .unwrap_or(Value::Null);
    (status, body)
}
