//! The shareable link of a project: its environment and its URL. A production
//! link is the project's id: anyone may open it while the project is active. A
//! sandbox link is a capability: it carries a [`SandboxToken`] that only the
//! tenant can obtain (`GET /v1/projects/{id}/url?environment=sandbox`), an HMAC
//! of the project under the tenant's sandbox secret; rotating the secret
//! ([`rotate_sandbox_secret`]) revokes every sandbox link given out before.

use platform::ids::ProjectId;
use platform::ids::TenantId;
use super::{store, Environment, Project};

use storage::Db;
use platform::error::{ApiError, ApiResult, FieldError, LocPart};
use platform::keys;
use platform::time;
use platform::validation;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

/// The `environment` query parameter (the last one given): 422 `missing` or `enum`.
pub fn parse_environment(pairs: &[(String, String)]) -> Result<Environment, FieldError> {
    let loc = vec![LocPart::from("query"), LocPart::from("environment")];
    let Some((_, value)) = pairs.iter().rev().find(|(name, _)| name == "environment") else {
        return Err(FieldError::new(loc, "missing", "Field required"));
    };
    Environment::parse(value).ok_or_else(|| {
        FieldError::new(loc, "enum", validation::enum_message(<Environment as text_enum::TextEnum>::NAMES))
    })
}

/// The link query parameter (and session start field) carrying a sandbox token.
pub const SANDBOX_TOKEN_PARAM: &str = "sandbox_token";

/// The token of a sandbox link: base64url of the first 16 bytes of
/// HMAC-SHA256(the tenant's sandbox secret, `sandbox:<project_id>`). 128 bits
/// cannot be guessed; the environment in the message keeps the token from
/// ever standing for anything else the secret might sign.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxToken(String);

impl SandboxToken {
    const BYTES: usize = 16;

    /// The token of `project_id`'s sandbox link under `secret`.
    pub fn for_project(secret: &str, project_id: ProjectId) -> SandboxToken {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
        mac.update(format!("{}:{project_id}", Environment::Sandbox.as_str()).as_bytes());
        SandboxToken(URL_SAFE_NO_PAD.encode(&mac.finalize().into_bytes()[..Self::BYTES]))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `given` is the token of `project_id` under `secret` (none when
    /// the tenant never had a sandbox link), compared in constant time.
    pub fn opens(given: Option<&str>, secret: Option<&str>, project_id: ProjectId) -> bool {
        match (given, secret) {
            (Some(given), Some(secret)) => {
                keys::constant_time_eq(given.as_bytes(), SandboxToken::for_project(secret, project_id).0.as_bytes())
            }
            _ => false,
        }
    }
}

/// `{base}/i/{project_id}`; a sandbox link adds `?env=sandbox&sandbox_token=<token>`.
pub fn share_url(base: &str, project_id: ProjectId, sandbox: Option<&SandboxToken>) -> String {
    let base = base.trim_end_matches('/');
    match sandbox {
        None => format!("{base}/i/{project_id}"),
        Some(token) => format!("{base}/i/{project_id}?env=sandbox&{SANDBOX_TOKEN_PARAM}={}", token.as_str()),
    }
}

/// The tenant's sandbox secret, made on first use (a tenant that never asked
/// for a sandbox link has none, and no sandbox link of it opens).
pub fn sandbox_secret(db: &Db, tenant_id: TenantId) -> ApiResult<String> {
    if let Some(secret) = store::sandbox_secret(db, tenant_id)? {
        return Ok(secret);
    }
    // Two first requests racing: the first secret written wins, both read it.
    store::set_sandbox_secret_if_none(db, tenant_id, &keys::generate_secret(""))?;
    store::sandbox_secret(db, tenant_id)?
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("tenant {tenant_id} has no row for its sandbox secret")))
}

/// `POST /v1/sandbox-links/rotate`: a new sandbox secret for the tenant. Every
/// sandbox link given out before stops opening (its page and its session
/// starts answer 404); interviews already running go on. The rotation's time.
pub fn rotate_sandbox_secret(db: &Db, tenant_id: TenantId) -> ApiResult<String> {
    let at = time::rfc3339_now();
    store::set_sandbox_secret(db, tenant_id, &keys::generate_secret(""))?;
    Ok(at)
}

/// `GET /v1/projects/{id}/url`: the production URL of a project that was
/// never published is a 400; the sandbox URL carries the project's token.
pub fn project_url(db: &Db, project: &Project, base: &str, environment: Environment) -> ApiResult<Value> {
    let token = match environment {
        Environment::Production if project.published_at.is_none() => {
            return Err(ApiError::BadRequest(
                "The project has never been published; activate it before using its production URL".into(),
            ))
        }
        Environment::Production => None,
        Environment::Sandbox => {
            Some(SandboxToken::for_project(&sandbox_secret(db, project.tenant_id)?, project.project_id))
        }
    };
    Ok(json!({ "project_id": project.project_id, "url": share_url(base, project.project_id, token.as_ref()) }))
}
