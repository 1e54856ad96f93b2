//! A stand-in HTTP server for tests: every connection on a listener served with one answering
//! function, over HTTP/1.1.

use std::convert::Infallible;
use std::future::Future;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;

/// Serves every connection `listener` accepts with `answer`, until the listener fails or the task
/// running this is aborted. A connection's error ends that connection only.
pub async fn serve<F, Fut>(listener: tokio::net::TcpListener, answer: F)
where
    F: Fn(http::Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = http::Response<Full<Bytes>>> + Send + 'static,
{
    while let Ok((stream, _)) = listener.accept().await {
        let answer = answer.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let answering = answer(request);
                async move { Ok::<_, Infallible>(answering.await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

/// A response of `status` with `body`, as the answering functions of [`serve`] return it.
pub fn response(status: u16, body: impl Into<Bytes>) -> http::Response<Full<Bytes>> {
    let mut response = http::Response::new(Full::new(body.into()));
    *response.status_mut() =
        http::StatusCode::from_u16(status).unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
    response
}
