//! The one error type of the service and the body shapes the contract uses. It
//! imports nothing of the crate: `http` turns an error into a response
//! (`ApiError::into_response`, `http::flat`), so the dependency runs one way.

use serde_json::{json, Value};

/// One segment of a pydantic-style error location (`["body","interview_modes",1]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocPart {
    Key(String),
    Index(usize),
}

impl From<&str> for LocPart {
    fn from(key: &str) -> Self {
        LocPart::Key(key.to_string())
    }
}

impl From<String> for LocPart {
    fn from(key: String) -> Self {
        LocPart::Key(key)
    }
}

impl From<usize> for LocPart {
    fn from(index: usize) -> Self {
        LocPart::Index(index)
    }
}

/// One entry of a 422 body, as FastAPI/pydantic v2 reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub loc: Vec<LocPart>,
    pub msg: String,
    /// pydantic's error type (`missing`, `string_too_short`, `enum`, ...).
    pub kind: &'static str,
}

impl FieldError {
    pub fn new(loc: Vec<LocPart>, kind: &'static str, msg: impl Into<String>) -> Self {
        FieldError { loc, msg: msg.into(), kind }
    }

    fn to_json(&self) -> Value {
        let loc: Vec<Value> = self
            .loc
            .iter()
            .map(|part| match part {
                LocPart::Key(key) => Value::from(key.as_str()),
                LocPart::Index(index) => Value::from(*index),
            })
            .collect();
        json!({ "loc": loc, "msg": self.msg, "type": self.kind })
    }
}

/// The credential a 401 asks for: its message says how to send it. A refusal
/// never says which part was wrong (an unknown tenant and a wrong key read the
/// same).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Credential {
    /// A tenant route's two headers.
    TenantKey,
    /// A partnership key (`sk-partner-...`) sent to a tenant route: the sender
    /// learns only what it sent.
    PartnershipKeyOnTenantRoute,
    /// An interview session's bearer token.
    SessionToken,
    /// The operator's bearer token of the maintenance route.
    OperatorToken,
}

impl Credential {
    fn refusal(self) -> &'static str {
        match self {
            Credential::TenantKey => {
                "Invalid or missing credentials: send the tenant's API key in X-Api-Key \
                 and the tenant's id (a UUID) in X-Tenant-Id"
            }
            Credential::PartnershipKeyOnTenantRoute => {
                "Invalid credentials: a partnership key (sk-partner-...) only works on \
                 POST /v1/tenants; send a tenant's API key in X-Api-Key and that tenant's \
                 id in X-Tenant-Id"
            }
            Credential::SessionToken => {
                "Invalid or missing session token: send this interview's session_token \
                 as Authorization: Bearer <token>"
            }
            Credential::OperatorToken => {
                "Invalid or missing token: send the maintenance_token as Authorization: Bearer <token>"
            }
        }
    }
}

/// Every way a request can fail. Each variant knows its status and body shape.
#[derive(Debug)]
pub enum ApiError {
    /// 422 `{detail:[{loc,msg,type}]}`.
    Validation(Vec<FieldError>),
    /// 401 `{detail:{error:"unauthorized",message}}`; the message says which
    /// credential the route takes, never which part was wrong.
    Unauthorized(Credential),
    /// 403 `{detail:{error:"forbidden",message}}`.
    Forbidden(String),
    /// 404 `{detail:{error:"not_found",message}}`.
    NotFound(String),
    /// 405 with `Allow`.
    MethodNotAllowed { allow: Vec<&'static str> },
    /// 409 `{detail:{error:<code>,message}}`.
    Conflict { code: &'static str, message: String },
    /// 410 `{detail:{error:<code>,message}}`: it existed, and is closed for good.
    Gone { code: &'static str, message: String },
    /// 415 `{detail:{error:"unsupported_media_type",message}}`.
    UnsupportedMediaType(String),
    /// 416 `{detail:{error:"range_not_satisfiable",message}}` with `Content-Range: bytes */<size>`.
    RangeNotSatisfiable { size: u64 },
    /// 503 `{detail:{error:<code>,message}}`: a capability that is not available now.
    Unavailable { code: &'static str, message: String },
    /// 503 `{detail:{error:"storage_unavailable",message}}` with `Retry-After`
    /// seconds: the records could not be reached in time (a write lock held
    /// past its bound, a remote database down or slow). Nothing was written.
    StorageUnavailable { retry_after: u64 },
    /// 400 `{detail:{error:<code>,message}}` (interview list, webhook confirm).
    BadRequestDetail { code: &'static str, message: String },
    /// 400 `{message,code:400}` (project URL, file upload).
    BadRequest(String),
    /// 413 `{message,code:413}`.
    PayloadTooLarge(String),
    /// 400 `{detail:{error:"unreadable_body",message}}`: the client's body could not
    /// be read (a malformed chunk, a connection closed early). Logged, not as an error.
    UnreadableBody(String),
    /// 429 with `Retry-After` seconds.
    RateLimited { retry_after: u64 },
    /// Tenant creation's own flat shape `{error,message}` with its status.
    TenantCreation { status: u16, code: &'static str, message: String },
    /// 500: logged in full, answered without internals.
    Internal(anyhow::Error),
}

impl ApiError {
    pub fn not_found(what: &str) -> Self {
        ApiError::NotFound(format!("{what} not found"))
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        ApiError::Conflict { code, message: message.into() }
    }

    pub fn internal(error: impl Into<anyhow::Error>) -> Self {
        ApiError::Internal(error.into())
    }

    pub fn status(&self) -> u16 {
        match self {
            ApiError::Validation(_) => 422,
            ApiError::Unauthorized(_) => 401,
            ApiError::Forbidden(_) => 403,
            ApiError::NotFound(_) => 404,
            ApiError::MethodNotAllowed { .. } => 405,
            ApiError::Conflict { .. } => 409,
            ApiError::Gone { .. } => 410,
            ApiError::UnsupportedMediaType(_) => 415,
            ApiError::RangeNotSatisfiable { .. } => 416,
            ApiError::Unavailable { .. } | ApiError::StorageUnavailable { .. } => 503,
            ApiError::BadRequestDetail { .. } | ApiError::BadRequest(_) | ApiError::UnreadableBody(_) => 400,
            ApiError::PayloadTooLarge(_) => 413,
            ApiError::RateLimited { .. } => 429,
            ApiError::TenantCreation { status, .. } => *status,
            ApiError::Internal(_) => 500,
        }
    }

    pub fn body(&self) -> Value {
        fn detail(code: &str, message: &str) -> Value {
            json!({ "detail": { "error": code, "message": message } })
        }
        match self {
            ApiError::Validation(errors) => {
                json!({ "detail": errors.iter().map(FieldError::to_json).collect::<Vec<_>>() })
            }
            ApiError::Unauthorized(credential) => detail("unauthorized", credential.refusal()),
            ApiError::Forbidden(message) => detail("forbidden", message),
            ApiError::NotFound(message) => detail("not_found", message),
            ApiError::MethodNotAllowed { .. } => {
                detail("method_not_allowed", "Method not allowed for this route")
            }
            ApiError::Conflict { code, message }
            | ApiError::BadRequestDetail { code, message }
            | ApiError::Gone { code, message }
            | ApiError::Unavailable { code, message } => detail(code, message),
            ApiError::UnsupportedMediaType(message) => detail("unsupported_media_type", message),
            ApiError::RangeNotSatisfiable { size } => detail(
                "range_not_satisfiable",
                &format!("The range is outside the recording's {size} bytes"),
            ),
            ApiError::BadRequest(message) => json!({ "message": message, "code": 400 }),
            ApiError::PayloadTooLarge(message) => json!({ "message": message, "code": 413 }),
            ApiError::UnreadableBody(reason) => {
                detail("unreadable_body", &format!("The request body could not be read ({reason}); send it again"))
            }
            ApiError::StorageUnavailable { retry_after } => detail(
                "storage_unavailable",
                &format!("The service's storage is busy or unreachable; nothing was changed, retry after {retry_after} seconds"),
            ),
            ApiError::RateLimited { retry_after } => detail(
                "rate_limited",
                &format!("Too many requests; retry after {retry_after} seconds"),
            ),
            ApiError::TenantCreation { code, message, .. } => {
                json!({ "error": code, "message": message })
            }
            ApiError::Internal(_) => detail("internal_error", "Internal server error"),
        }
    }
}

impl From<spin_sdk::sqlite::Error> for ApiError {
    fn from(error: spin_sdk::sqlite::Error) -> Self {
        ApiError::Internal(anyhow::anyhow!("sqlite: {error:?}"))
    }
}

impl From<spin_sdk::key_value::Error> for ApiError {
    fn from(error: spin_sdk::key_value::Error) -> Self {
        ApiError::Internal(anyhow::anyhow!("key-value: {error:?}"))
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_errors_use_pydantic_shape() {
        let error = ApiError::Validation(vec![
            FieldError::new(vec!["body".into(), "project_name".into()], "missing", "Field required"),
            FieldError::new(
                vec!["body".into(), "interview_modes".into(), 1.into()],
                "enum",
                "Input should be 'typing' or 'talking'",
            ),
        ]);
        assert_eq!(error.status(), 422);
        assert_eq!(
            error.body(),
            json!({"detail": [
                {"loc": ["body", "project_name"], "msg": "Field required", "type": "missing"},
                {"loc": ["body", "interview_modes", 1], "msg": "Input should be 'typing' or 'talking'", "type": "enum"}
            ]})
        );
    }

    #[test]
    fn detail_errors_nest_error_and_message() {
        let body = ApiError::not_found("Project").body();
        assert_eq!(body, json!({"detail": {"error": "not_found", "message": "Project not found"}}));
        let body = ApiError::Unauthorized(Credential::TenantKey).body();
        assert_eq!(body["detail"]["error"], "unauthorized");
        let message = body["detail"]["message"].as_str().unwrap();
        assert!(message.contains("X-Api-Key") && message.contains("X-Tenant-Id"), "{message}");
        let body = ApiError::Unauthorized(Credential::PartnershipKeyOnTenantRoute).body();
        assert!(body["detail"]["message"].as_str().unwrap().contains("only works on POST /v1/tenants"));
    }

    #[test]
    fn coded_and_flat_shapes() {
        assert_eq!(
            ApiError::BadRequest("bad".into()).body(),
            json!({"message": "bad", "code": 400})
        );
        assert_eq!(ApiError::PayloadTooLarge("big".into()).status(), 413);
        assert_eq!(
            ApiError::PayloadTooLarge("big".into()).body(),
            json!({"message": "big", "code": 413})
        );
        let flat = ApiError::TenantCreation { status: 409, code: "conflict", message: "exists".into() };
        assert_eq!(flat.status(), 409);
        assert_eq!(flat.body(), json!({"error": "conflict", "message": "exists"}));
    }

    #[test]
    fn internal_errors_hide_their_cause() {
        let body = ApiError::internal(anyhow::anyhow!("secret path /x/y")).body();
        assert_eq!(body["detail"]["error"], "internal_error");
        assert!(!body.to_string().contains("/x/y"));
    }
}
