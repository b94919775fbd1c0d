//! `POST /v1/files` (multipart upload, streamed into the key-value store) and
//! `GET /v1/files/{file_id}` (the bytes back, streamed chunk by chunk).

use files_core::{self as files, StoredChunks};
use pipeline::{routes, Context, Handler};
use platform::auth::Tenant;
use platform::http::{ApiRequest, ApiResponse, PathParams, Reply, Router};
use platform::ApiResult;
use serde_json::json;
use spin_sdk::http::{IncomingRequest, ResponseOutparam};
use spin_sdk::http_component;
use std::future::Future;
use std::pin::Pin;

type Answer = Pin<Box<dyn Future<Output = ApiResult<Reply>>>>;

#[http_component]
async fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
    let router = Router::new()
        .route(routes::UPLOAD_FILE, Handler::TenantStream(upload))
        .route(routes::DOWNLOAD_FILE, Handler::TenantStream(download));
    pipeline::serve(request, response_out, &router).await
}

fn upload(context: Context, tenant: Tenant, request: ApiRequest, _: PathParams, body: IncomingRequest) -> Answer {
    Box::pin(async move {
        let store = files::open_store()?;
        let record =
            files::upload(&context.db, &store, tenant.id(), &request, body.into_body_stream()).await?;
        Ok(ApiResponse::json(200, &json!({ "file_id": record.file_id })).into())
    })
}

fn download(context: Context, tenant: Tenant, request: ApiRequest, params: PathParams, _: IncomingRequest) -> Answer {
    Box::pin(async move {
        let record = files::find(&context.db, tenant.id(), params.get("file_id"))?;
        let head = files::download_head(&record, request.header("if-none-match"));
        if head.status != 200 {
            return Ok(Reply::Full(head));
        }
        Ok(Reply::Streamed(head, Box::new(StoredChunks::new(files::open_store()?, &record))))
    })
}
