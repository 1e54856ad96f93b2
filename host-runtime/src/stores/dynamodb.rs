//! [`DynamoDbDedupe`]: event deduplication in an Amazon DynamoDB table (feature `dynamodb`).
//!
//! The store speaks DynamoDB's JSON protocol itself over the runtime's HTTP client, with requests
//! signed by `aws-sigv4` (see the crate's `Cargo.toml` for why not the AWS SDK).

use std::fmt;
use std::time::Duration;

use bytes::Bytes;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::platform::BoxFuture;
use crate::platform::client::Client;
use crate::platform::rt::{SystemTime, UNIX_EPOCH};
use crate::stores::dedupe::{Claim, DedupeStore, StoreError, StoreErrorKind, WINDOW};

/// The partition key attribute the table must have (type string).
pub const KEY_ATTRIBUTE: &str = "pk";
/// The attribute DynamoDB's time to live should be enabled on (seconds since the Unix epoch).
pub const TTL_ATTRIBUTE: &str = "expires";

/// Keys longer than this are stored as their SHA-256 (DynamoDB allows 2048 bytes in a partition
/// key; a reserved event's key holds its whole payload).
const LONGEST_PLAIN_KEY: usize = 1024;
/// The most of an answer the store reads.
const MAX_ANSWER: usize = 1024 * 1024;

/// Why DynamoDB could not be used: what went wrong, with the table, and what to do. When the
/// request got no answer, the HTTP client's error is the [`source`](std::error::Error::source).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DynamoDbError {
    /// DynamoDB's error type (`ResourceNotFoundException`, ...), when it answered with one.
    pub code: Option<String>,
    /// The explanation.
    pub message: String,
    kind: StoreErrorKind,
    source: Option<crate::platform::client::ClientError>,
}

impl fmt::Display for DynamoDbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DynamoDbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Two errors are equal when they say the same (sources are not compared).
impl PartialEq for DynamoDbError {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code && self.message == other.message && self.kind == other.kind
    }
}

impl Eq for DynamoDbError {}

impl DynamoDbError {
    /// A set-up mistake to fix (a missing region, credentials, table): retrying does not help.
    fn new(message: impl Into<String>) -> Self {
        DynamoDbError::of(StoreErrorKind::Refused, message)
    }

    fn of(kind: StoreErrorKind, message: impl Into<String>) -> Self {
        DynamoDbError {
            code: None,
            message: message.into(),
            kind,
            source: None,
        }
    }

    fn is(&self, code: &str) -> bool {
        self.code.as_deref() == Some(code)
    }

    /// What kind of failure it is: [`Refused`](StoreErrorKind::Refused) for a set-up to fix,
    /// [`Unavailable`](StoreErrorKind::Unavailable) or [`Timeout`](StoreErrorKind::Timeout) to
    /// retry.
    pub fn kind(&self) -> StoreErrorKind {
        self.kind
    }

    /// The store error of an operation that failed with this error (its source).
    fn store_error(self, what: &str) -> StoreError {
        StoreError::new("dynamodb", self.kind, what).with_source(self)
    }
}

/// AWS credentials: an access key and its secret, with a session token for temporary ones (what
/// Lambda gives a function from its role).
#[derive(Clone)]
pub struct AwsCredentials {
    /// `AWS_ACCESS_KEY_ID`.
    pub access_key_id: String,
    /// `AWS_SECRET_ACCESS_KEY`.
    pub secret_access_key: String,
    /// `AWS_SESSION_TOKEN`, for temporary credentials.
    pub session_token: Option<String>,
}

impl fmt::Debug for AwsCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the secret or the token.
        f.debug_struct("AwsCredentials")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

/// Event deduplication in a DynamoDB table, shared by every instance of a vendor server: the
/// serverless store for AWS Lambda, where instances share no memory and Redis would need a VPC.
///
/// One item per key, partition key [`KEY_ATTRIBUTE`] (`pk`, a string):
///
/// - a claim is a lease: a `PutItem` that succeeds only when no item exists or the one there has
///   run out (`attribute_not_exists(pk) OR until < now`), recording the attempt's owner token
///   and when the lease ends. The attempt renews it every third of the lease while its handler
///   runs; a crashed instance's claim can be taken again once the lease (a minute) is over;
/// - `complete` turns the item into a record kept for the deduplication window (20 minutes), and
///   `release` deletes it, both with a condition that the item is still the caller's claim, so
///   an attempt that outlived its lease can never erase what another recorded;
/// - a duplicate finds a record (answered without running the handler) or another's live claim
///   (claimed again shortly, as with Redis).
///
/// Each item also carries [`TTL_ATTRIBUTE`] (`expires`), a Number of seconds since the Unix epoch
/// at which its lease or its record ends, rounded up: with DynamoDB's time to live enabled on it,
/// old items are deleted for free, and [`check`](Self::check) fails when it is not. The store never
/// relies on that deletion (it can lag by days): an item past its time counts as absent.
///
/// Leases compare the instances' clocks; Lambda's are kept in sync by AWS, well within the lease.
///
/// Create the table (on-demand billing) and enable its time to live once, with
/// [`create_table`](Self::create_table) or the AWS CLI:
///
/// ```text
/// aws dynamodb create-table --table-name host-events \
///     --attribute-definitions AttributeName=pk,AttributeType=S \
///     --key-schema AttributeName=pk,KeyType=HASH --billing-mode PAY_PER_REQUEST
/// aws dynamodb update-time-to-live --table-name host-events \
///     --time-to-live-specification Enabled=true,AttributeName=expires
/// ```
///
/// The function's role needs `dynamodb:PutItem`, `GetItem`, `UpdateItem`, `DeleteItem`,
/// `DescribeTable` and `DescribeTimeToLive` on the table.
///
/// ```no_run
/// # async fn f(handler: host_runtime::Handler) -> Result<(), host_runtime::dedupe::DynamoDbError> {
/// use host_runtime::dedupe::DynamoDbDedupe;
/// // Region, credentials and endpoint from the usual AWS variables (set by Lambda).
/// let store = DynamoDbDedupe::from_env("host-events")?;
/// store.check().await?; // the table is set up right: fail at start, not per event
/// let handler = handler.with_dedupe_store(store);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct DynamoDbDedupe {
    table: String,
    region: String,
    endpoint: http::Uri,
    credentials: aws_credential_types::Credentials,
    client: Client,
    prefix: String,
    lease: Duration,
}

impl fmt::Debug for DynamoDbDedupe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the credentials.
        f.debug_struct("DynamoDbDedupe")
            .field("table", &self.table)
            .field("region", &self.region)
            .field("endpoint", &self.endpoint.to_string())
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

impl DynamoDbDedupe {
    /// How long a claim lasts without renewal unless [`with_lease`](Self::with_lease) says otherwise.
    pub const DEFAULT_LEASE: Duration = Duration::from_secs(60);
    /// How long one DynamoDB request may take.
    pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

    /// A store on `table`, configured from the process environment as the AWS tools are:
    ///
    /// - the region from `AWS_REGION`, else `AWS_DEFAULT_REGION`;
    /// - credentials from `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`
    ///   (Lambda sets all three from the function's role);
    /// - the endpoint from `AWS_ENDPOINT_URL_DYNAMODB`, else `AWS_ENDPOINT_URL`, else
    ///   `https://dynamodb.<region>.amazonaws.com` (set one to use a local emulator).
    ///
    /// Nothing is sent yet; [`check`](Self::check) looks at the table.
    pub fn from_env(table: &str) -> Result<Self, DynamoDbError> {
        Self::from_vars(table, |name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) with the variables read from `var` (a map in tests).
    pub fn from_vars(
        table: &str,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, DynamoDbError> {
        let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let region = var("AWS_REGION")
            .or_else(|| var("AWS_DEFAULT_REGION"))
            .ok_or_else(|| {
                DynamoDbError::new(format!(
                    "the DynamoDB deduplication store (table `{table}`) needs a region: set AWS_REGION \
                     (Lambda sets it), for example AWS_REGION=us-east-1"
                ))
            })?;
        let missing: Vec<&str> = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]
            .into_iter()
            .filter(|name| var(name).is_none())
            .collect();
        let (Some(id), Some(secret)) = (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY"))
        else {
            return Err(DynamoDbError::new(format!(
                "the DynamoDB deduplication store (table `{table}`) needs credentials: {} not set \
                 (Lambda sets them from the function's role; elsewhere export them, with \
                 AWS_SESSION_TOKEN for temporary ones)",
                missing.join(" and ")
            )));
        };
        let endpoint = var("AWS_ENDPOINT_URL_DYNAMODB")
            .or_else(|| var("AWS_ENDPOINT_URL"))
            .unwrap_or_else(|| format!("https://dynamodb.{region}.amazonaws.com"));
        let store = Self::new(
            table,
            &region,
            &endpoint,
            AwsCredentials {
                access_key_id: id,
                secret_access_key: secret,
                session_token: var("AWS_SESSION_TOKEN"),
            },
        )?;
        Ok(store)
    }

    /// A store on `table` in `region` at `endpoint` (`https://dynamodb.<region>.amazonaws.com`, or
    /// an emulator's URL), signing with `credentials`.
    pub fn new(
        table: &str,
        region: &str,
        endpoint: &str,
        credentials: AwsCredentials,
    ) -> Result<Self, DynamoDbError> {
        if table.is_empty() {
            return Err(DynamoDbError::new(
                "the DynamoDB deduplication store needs a table name; it is empty",
            ));
        }
        let parsed: http::Uri = endpoint.trim().parse().map_err(|e| {
            DynamoDbError::new(format!(
                "the DynamoDB endpoint `{endpoint}` is not a URL ({e}); use \
                 https://dynamodb.<region>.amazonaws.com or an emulator's http://host:port"
            ))
        })?;
        if parsed.host().is_none() || !matches!(parsed.scheme_str(), Some("http" | "https")) {
            return Err(DynamoDbError::new(format!(
                "the DynamoDB endpoint `{endpoint}` is not an http or https URL with a host; use \
                 https://dynamodb.<region>.amazonaws.com or an emulator's http://host:port"
            )));
        }
        let client = Client::platform_default().ok_or_else(|| {
            DynamoDbError::new("no HTTP client on this platform; give one with `with_http_client`")
        })?;
        Ok(DynamoDbDedupe {
            table: table.to_owned(),
            region: region.to_owned(),
            endpoint: parsed,
            credentials: aws_credential_types::Credentials::new(
                credentials.access_key_id,
                credentials.secret_access_key,
                credentials.session_token,
                None,
                "host-runtime",
            ),
            client,
            prefix: String::new(),
            lease: Self::DEFAULT_LEASE,
        })
    }

    /// How long a claim lasts without renewal (default 60 s, at least 1 s): what a crashed instance
    /// holds a key for. Attempts renew it every third of it.
    pub fn with_lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_secs(1));
        self
    }

    /// Prefixes every key (to share one table between extensions).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Sends requests with `client` instead of the platform's default.
    pub fn with_http_client(mut self, client: Client) -> Self {
        self.client = client;
        self
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// Checks that the table exists, is reachable with these credentials, has the partition key
    /// this store writes (`pk`, a string), and has DynamoDB's time to live enabled on
    /// [`TTL_ATTRIBUTE`] (`expires`). Call it at start so a table set up wrong is one clear error
    /// then rather than a failed delivery per event.
    ///
    /// A table whose time to live is off, or on another attribute, fails the check: the store
    /// still works, but its records are never deleted and the table grows for good. When the
    /// credentials may not read the time to live (`dynamodb:DescribeTimeToLive` is not allowed),
    /// the check logs a warning and passes, since the table may well be right.
    pub async fn check(&self) -> Result<(), DynamoDbError> {
        let answer = self
            .call("DescribeTable", json!({ "TableName": self.table }))
            .await?;
        let schema = &answer["Table"]["KeySchema"];
        let hash = schema
            .as_array()
            .and_then(|keys| keys.iter().find(|k| k["KeyType"] == "HASH"))
            .and_then(|k| k["AttributeName"].as_str());
        let typ = answer["Table"]["AttributeDefinitions"]
            .as_array()
            .and_then(|defs| defs.iter().find(|d| d["AttributeName"] == KEY_ATTRIBUTE))
            .and_then(|d| d["AttributeType"].as_str());
        let ranged = schema.as_array().is_some_and(|keys| keys.len() > 1);
        if hash != Some(KEY_ATTRIBUTE) || typ != Some("S") || ranged {
            return Err(DynamoDbError::new(format!(
                "DynamoDB table `{}` has the wrong key for event deduplication: it needs a string \
                 partition key `{KEY_ATTRIBUTE}` and no sort key; create another table with \
                 {}",
                self.table,
                self.create_command()
            )));
        }
        self.check_time_to_live().await
    }

    /// Whether DynamoDB's time to live is on for [`TTL_ATTRIBUTE`] (or being turned on).
    async fn check_time_to_live(&self) -> Result<(), DynamoDbError> {
        let described = self
            .call("DescribeTimeToLive", json!({ "TableName": self.table }))
            .await;
        let answer = match described {
            Ok(answer) => answer,
            Err(e) if e.is("AccessDeniedException") => {
                tracing::warn!(
                    table = %self.table,
                    error = %e,
                    "cannot see whether the DynamoDB deduplication table deletes old records; \
                     allow dynamodb:DescribeTimeToLive on it to have this checked"
                );
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        let ttl = &answer["TimeToLiveDescription"];
        let status = ttl["TimeToLiveStatus"].as_str().unwrap_or("DISABLED");
        let attribute = ttl["AttributeName"].as_str();
        let on = matches!(status, "ENABLED" | "ENABLING");
        if on && attribute == Some(TTL_ATTRIBUTE) {
            return Ok(());
        }
        let now = match attribute {
            Some(other) if on => {
                format!("is on `{other}`; turn it off, then on for `{TTL_ATTRIBUTE}`")
            }
            // Off, or being turned off.
            _ => "is off; turn it on".to_owned(),
        };
        Err(DynamoDbError::new(format!(
            "DynamoDB table `{}` never deletes old deduplication records: its time to live {now} \
             with {}",
            self.table,
            self.ttl_command()
        )))
    }

    /// Creates the table (on-demand billing, partition key `pk`) and enables its time to live on
    /// `expires`, then waits until it is active. For set-up scripts and tests; in production,
    /// create it with your infrastructure code.
    pub async fn create_table(&self) -> Result<(), DynamoDbError> {
        self.call(
            "CreateTable",
            json!({
                "TableName": self.table,
                "AttributeDefinitions": [{ "AttributeName": KEY_ATTRIBUTE, "AttributeType": "S" }],
                "KeySchema": [{ "AttributeName": KEY_ATTRIBUTE, "KeyType": "HASH" }],
                "BillingMode": "PAY_PER_REQUEST",
            }),
        )
        .await?;
        for _ in 0..300 {
            let answer = self
                .call("DescribeTable", json!({ "TableName": self.table }))
                .await?;
            if answer["Table"]["TableStatus"] == "ACTIVE" {
                self.call(
                    "UpdateTimeToLive",
                    json!({
                        "TableName": self.table,
                        "TimeToLiveSpecification": { "Enabled": true, "AttributeName": TTL_ATTRIBUTE },
                    }),
                )
                .await?;
                return Ok(());
            }
            crate::platform::rt::sleep(Duration::from_millis(200)).await;
        }
        Err(DynamoDbError::new(format!(
            "DynamoDB table `{}` was created but did not become active within a minute",
            self.table
        )))
    }

    fn create_command(&self) -> String {
        format!(
            "`aws dynamodb create-table --table-name {t} --attribute-definitions \
             AttributeName={KEY_ATTRIBUTE},AttributeType=S --key-schema \
             AttributeName={KEY_ATTRIBUTE},KeyType=HASH --billing-mode PAY_PER_REQUEST` and {ttl}",
            t = self.table,
            ttl = self.ttl_command()
        )
    }

    fn ttl_command(&self) -> String {
        format!(
            "`aws dynamodb update-time-to-live --table-name {t} --time-to-live-specification \
             Enabled=true,AttributeName={TTL_ATTRIBUTE}` (region {r})",
            t = self.table,
            r = self.region
        )
    }

    /// The item key of a deduplication key.
    fn item_key(&self, key: &str) -> String {
        let full = format!("{}{key}", self.prefix);
        if full.len() <= LONGEST_PLAIN_KEY {
            return full;
        }
        let digest = Sha256::digest(full.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    }

    /// One DynamoDB operation: the signed request, its answer's JSON, or an error that names the
    /// table and what to do.
    async fn call(&self, operation: &str, body: Value) -> Result<Value, DynamoDbError> {
        let request = self.signed(operation, body.to_string().into_bytes())?;
        let sent = crate::platform::rt::timeout(
            Self::REQUEST_TIMEOUT,
            self.client.send(request, MAX_ANSWER),
        );
        let answer = match sent.await {
            Ok(Ok(answer)) => answer,
            Ok(Err(e)) => {
                let kind = match e.kind() {
                    crate::platform::client::ClientErrorKind::Timeout => StoreErrorKind::Timeout,
                    _ => StoreErrorKind::Unavailable,
                };
                let mut error = DynamoDbError::of(
                    kind,
                    format!(
                        "cannot reach DynamoDB at {} for table `{}`",
                        self.endpoint, self.table
                    ),
                );
                error.source = Some(e);
                return Err(error);
            }
            Err(_) => {
                return Err(DynamoDbError::of(
                    StoreErrorKind::Timeout,
                    format!(
                        "DynamoDB at {} did not answer {operation} on table `{}` within {} s",
                        self.endpoint,
                        self.table,
                        Self::REQUEST_TIMEOUT.as_secs()
                    ),
                ));
            }
        };
        let status = answer.status();
        let json: Value = serde_json::from_slice(answer.body()).unwrap_or(Value::Null);
        if status.is_success() {
            return Ok(json);
        }
        // `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException` -> the part after `#`.
        let code = json["__type"]
            .as_str()
            .map(|t| t.rsplit('#').next().unwrap_or(t).to_owned());
        let said = json["message"]
            .as_str()
            .or_else(|| json["Message"].as_str())
            .unwrap_or("")
            .to_owned();
        Err(self.explain(operation, status.as_u16(), code, &said))
    }

    fn explain(
        &self,
        operation: &str,
        status: u16,
        code: Option<String>,
        said: &str,
    ) -> DynamoDbError {
        let table = &self.table;
        let what = match code.as_deref() {
            Some("ResourceNotFoundException") => format!(
                "DynamoDB table `{table}` does not exist at {}; create it with {}",
                self.endpoint,
                self.create_command()
            ),
            Some(
                "UnrecognizedClientException"
                | "InvalidSignatureException"
                | "MissingAuthenticationTokenException"
                | "ExpiredTokenException"
                | "IncompleteSignatureException",
            ) => format!(
                "DynamoDB refused the credentials for table `{table}` ({}: {said}); check \
                 AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (on Lambda: the \
                 function's role) and AWS_REGION ({})",
                code.as_deref().unwrap_or_default(),
                self.region
            ),
            Some("AccessDeniedException") => format!(
                "the credentials may not use DynamoDB table `{table}` ({said}); allow \
                 dynamodb:PutItem, GetItem, UpdateItem, DeleteItem, DescribeTable and \
                 DescribeTimeToLive on it in the \
                 function's role"
            ),
            Some(
                "ProvisionedThroughputExceededException"
                | "ThrottlingException"
                | "RequestLimitExceeded",
            ) => format!(
                "DynamoDB is throttling table `{table}` ({said}); the host retries the delivery; \
                 use on-demand billing or raise the table's capacity"
            ),
            Some(other) => {
                format!("DynamoDB refused {operation} on table `{table}`: {other}: {said}")
            }
            None => format!(
                "DynamoDB at {} answered {operation} on table `{table}` with HTTP {status} {said}",
                self.endpoint
            ),
        };
        let kind = match code.as_deref() {
            Some(
                "ProvisionedThroughputExceededException"
                | "ThrottlingException"
                | "RequestLimitExceeded",
            ) => StoreErrorKind::Unavailable,
            Some(_) if status < 500 => StoreErrorKind::Refused,
            _ => StoreErrorKind::Unavailable,
        };
        DynamoDbError {
            code,
            message: what,
            kind,
            source: None,
        }
    }

    /// The signed `POST /` of `operation` with `body`.
    fn signed(
        &self,
        operation: &str,
        body: Vec<u8>,
    ) -> Result<http::Request<Bytes>, DynamoDbError> {
        use aws_sigv4::http_request::{SignableBody, SignableRequest, SigningSettings, sign};
        let target = format!("DynamoDB_20120810.{operation}");
        let mut request = http::Request::post(self.endpoint.clone())
            .header(http::header::CONTENT_TYPE, "application/x-amz-json-1.0")
            .header("x-amz-target", &target)
            .body(Bytes::from(body))
            .map_err(|e| DynamoDbError::new(format!("cannot build a DynamoDB request: {e}")))?;
        let identity = self.credentials.clone().into();
        let params = aws_sigv4::sign::v4::SigningParams::builder()
            .identity(&identity)
            .region(&self.region)
            .name("dynamodb")
            .time(std::time::SystemTime::now())
            .settings(SigningSettings::default())
            .build()
            .map_err(|e| DynamoDbError::new(format!("cannot sign a DynamoDB request: {e}")))?
            .into();
        let endpoint = self.endpoint.to_string();
        let headers = [
            ("content-type", "application/x-amz-json-1.0"),
            ("x-amz-target", target.as_str()),
        ];
        let signable = SignableRequest::new(
            "POST",
            endpoint.as_str(),
            headers.into_iter(),
            SignableBody::Bytes(request.body()),
        )
        .and_then(|signable| sign(signable, &params))
        .map_err(|e| DynamoDbError::new(format!("cannot sign a DynamoDB request: {e}")))?;
        let (instructions, _signature) = signable.into_parts();
        instructions.apply_to_request_http1x(&mut request);
        Ok(request)
    }

    /// A settling operation's condition: the item is `owner`'s claim.
    fn held_by(owner: &str) -> (&'static str, Value) {
        (
            "#owner = :owner AND #state = :inflight",
            json!({ ":owner": { "S": owner }, ":inflight": { "S": "inflight" } }),
        )
    }

    async fn claim_item(&self, key: &str, owner: &str) -> Result<Claim, DynamoDbError> {
        let now = now_ms();
        let until = now.saturating_add(millis(self.lease));
        let pk = self.item_key(key);
        let put = self
            .call(
                "PutItem",
                json!({
                    "TableName": self.table,
                    "Item": {
                        KEY_ATTRIBUTE: { "S": pk },
                        "state": { "S": "inflight" },
                        "owner": { "S": owner },
                        "until": { "N": until.to_string() },
                        TTL_ATTRIBUTE: { "N": ttl_of(until).to_string() },
                    },
                    "ConditionExpression": "attribute_not_exists(#pk) OR #until < :now",
                    "ExpressionAttributeNames": { "#pk": KEY_ATTRIBUTE, "#until": "until" },
                    "ExpressionAttributeValues": { ":now": { "N": now.to_string() } },
                }),
            )
            .await;
        match put {
            Ok(_) => return Ok(Claim::Run),
            Err(e) if e.is("ConditionalCheckFailedException") => {}
            Err(e) => return Err(e),
        }
        // Taken: a record (done) or another attempt's live claim.
        let got = self
            .call(
                "GetItem",
                json!({
                    "TableName": self.table,
                    "Key": { KEY_ATTRIBUTE: { "S": pk } },
                    "ConsistentRead": true,
                    "ProjectionExpression": "#state, #until",
                    "ExpressionAttributeNames": { "#state": "state", "#until": "until" },
                }),
            )
            .await?;
        let item = &got["Item"];
        let live = item["until"]["N"]
            .as_str()
            .and_then(|n| n.parse::<u64>().ok())
            .is_some_and(|until| until >= now_ms());
        Ok(if item["state"]["S"] == "done" && live {
            Claim::Done
        } else {
            // In flight elsewhere, or settled between the two requests: claim again shortly.
            Claim::Busy
        })
    }

    /// `complete` (record for the window) or `renew` (extend the lease) of `owner`'s claim.
    async fn update(&self, key: &str, owner: &str, done: bool) -> Result<(), DynamoDbError> {
        let until = now_ms().saturating_add(millis(if done { WINDOW } else { self.lease }));
        let (condition, mut values) = Self::held_by(owner);
        values[":until"] = json!({ "N": until.to_string() });
        values[":expires"] = json!({ "N": ttl_of(until).to_string() });
        let set = if done {
            values[":done"] = json!({ "S": "done" });
            "SET #state = :done, #until = :until, #expires = :expires"
        } else {
            "SET #until = :until, #expires = :expires"
        };
        self.settle(json!({
            "TableName": self.table,
            "Key": { KEY_ATTRIBUTE: { "S": self.item_key(key) } },
            "UpdateExpression": set,
            "ConditionExpression": condition,
            "ExpressionAttributeNames": {
                "#owner": "owner", "#state": "state", "#until": "until", "#expires": TTL_ATTRIBUTE,
            },
            "ExpressionAttributeValues": values,
        }), "UpdateItem")
        .await
    }

    async fn delete(&self, key: &str, owner: &str) -> Result<(), DynamoDbError> {
        let (condition, values) = Self::held_by(owner);
        self.settle(
            json!({
                "TableName": self.table,
                "Key": { KEY_ATTRIBUTE: { "S": self.item_key(key) } },
                "ConditionExpression": condition,
                "ExpressionAttributeNames": { "#owner": "owner", "#state": "state" },
                "ExpressionAttributeValues": values,
            }),
            "DeleteItem",
        )
        .await
    }

    /// A conditional write whose failed condition means "not the holder": nothing to do.
    async fn settle(&self, body: Value, operation: &str) -> Result<(), DynamoDbError> {
        match self.call(operation, body).await {
            Ok(_) => Ok(()),
            Err(e) if e.is("ConditionalCheckFailedException") => Ok(()),
            Err(e) => Err(e),
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, millis)
}

/// The time-to-live value (whole seconds, rounded up) of an item good until `until_ms`.
fn ttl_of(until_ms: u64) -> u64 {
    until_ms.div_ceil(1000)
}

impl DedupeStore for DynamoDbDedupe {
    fn name(&self) -> &'static str {
        "dynamodb"
    }

    fn claim<'a>(
        &'a self,
        key: &'a str,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Claim, StoreError>> {
        Box::pin(async move {
            self.claim_item(key, owner)
                .await
                .map_err(|e| e.store_error("cannot claim the event key"))
        })
    }

    fn complete<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(e) = self.update(key, owner, true).await {
                tracing::warn!(error = %crate::calls::error::Chain(&e), "could not record a processed event in DynamoDB");
            }
        })
    }

    fn release<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(e) = self.delete(key, owner).await {
                tracing::warn!(error = %crate::calls::error::Chain(&e), "could not release an event key in DynamoDB");
            }
        })
    }

    fn renew<'a>(&'a self, key: &'a str, owner: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(e) = self.update(key, owner, false).await {
                tracing::warn!(error = %crate::calls::error::Chain(&e), "could not renew an event claim in DynamoDB");
            }
        })
    }

    fn renew_every(&self) -> Option<Duration> {
        Some(self.lease / 3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> DynamoDbDedupe {
        DynamoDbDedupe::new(
            "events",
            "eu-west-1",
            "http://127.0.0.1:1",
            AwsCredentials {
                access_key_id: "AKIDEXAMPLE".into(),
                secret_access_key: "secret".into(),
                session_token: None,
            },
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn long_keys_are_hashed_short_ones_kept() {
        let s = store().with_prefix("p:");
        assert_eq!(
            s.item_key("release.shipped|ins_1|rel_1"),
            "p:release.shipped|ins_1|rel_1"
        );
        let long = "x".repeat(3000);
        let hashed = s.item_key(&long);
        assert!(
            hashed.starts_with("sha256:") && hashed.len() == 71,
            "{hashed}"
        );
        assert_ne!(hashed, s.item_key(&"y".repeat(3000)));
    }

    #[test]
    fn the_environment_names_what_is_missing() {
        let e = DynamoDbDedupe::from_vars("events", |_| None).unwrap_err();
        assert!(e.message.contains("AWS_REGION"), "{e}");
        let e = DynamoDbDedupe::from_vars("events", |k| {
            (k == "AWS_REGION").then(|| "eu-west-1".into())
        })
        .unwrap_err();
        assert!(
            e.message
                .contains("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
            "{e}"
        );
        assert!(e.message.contains("`events`"), "{e}");
        let vars = |k: &str| match k {
            "AWS_REGION" => Some("eu-west-1".to_owned()),
            "AWS_ACCESS_KEY_ID" | "AWS_SECRET_ACCESS_KEY" => Some("x".to_owned()),
            "AWS_ENDPOINT_URL" => Some("localhost:8000".to_owned()),
            _ => None,
        };
        let e = DynamoDbDedupe::from_vars("events", vars).unwrap_err();
        assert!(e.message.contains("`localhost:8000`"), "{e}");
        let ok = DynamoDbDedupe::from_vars("events", |k| match k {
            "AWS_ENDPOINT_URL" => None,
            other => vars(other),
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            ok.endpoint.to_string(),
            "https://dynamodb.eu-west-1.amazonaws.com/"
        );
    }

    #[test]
    fn requests_are_signed_for_dynamodb() {
        let request = store()
            .signed("GetItem", b"{}".to_vec())
            .unwrap_or_else(|e| panic!("{e}"));
        let auth = request.headers()["authorization"]
            .to_str()
            .unwrap_or_default();
        assert!(
            auth.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"),
            "{auth}"
        );
        assert!(auth.contains("/eu-west-1/dynamodb/aws4_request"), "{auth}");
        assert!(
            auth.contains("x-amz-target"),
            "the target is signed: {auth}"
        );
        assert!(request.headers().contains_key("x-amz-date"));
    }

    #[test]
    fn a_missing_table_says_how_to_create_it() {
        let e = store().explain(
            "PutItem",
            400,
            Some("ResourceNotFoundException".into()),
            "Requested resource not found",
        );
        assert!(e.message.contains("table `events` does not exist"), "{e}");
        assert!(
            e.message
                .contains("aws dynamodb create-table --table-name events"),
            "{e}"
        );
        assert!(e.message.contains("AttributeName=expires"), "{e}");
    }
}
