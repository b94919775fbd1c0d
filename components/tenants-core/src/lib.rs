//! Tenants: parsing a creation request, and storing the tenant with its key hash.

use platform::ids::TenantId;
use storage::{self as db, Db};
use platform::error::{ApiError, ApiResult};
use platform::keys;
use platform::time;
use platform::validation;
use email_address::EmailAddress;
use serde::Serialize;
use serde_json::Value;
use std::str::FromStr;

pub const MAX_ORGANIZATION_NAME: usize = 200;
pub const MAX_DESCRIPTION: usize = 2000;
/// RFC 5321's limit on a forward path.
pub const MAX_EMAIL: usize = 254;

/// A valid tenant creation request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTenant {
    /// Trimmed, 1..=200 characters.
    pub organization_name: String,
    pub contact_email: String,
    pub description: Option<String>,
}

fn invalid(message: impl Into<String>) -> ApiError {
    ApiError::TenantCreation { status: 400, code: "invalid_request", message: message.into() }
}

impl NewTenant {
    /// Every problem is a 400 `{error:"invalid_request",message}`, malformed JSON
    /// and a non-JSON content type included (the body is read as on every route).
    pub fn parse(content_type: Option<&str>, body: &[u8]) -> ApiResult<NewTenant> {
        let value = validation::parse_json_request(content_type, body).map_err(|error| match error {
            ApiError::Validation(problems) => invalid(
                problems
                    .into_iter()
                    .map(|problem| match problem.kind {
                        "missing" => "A JSON body is required".to_string(),
                        _ => problem.msg,
                    })
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
            other => other,
        })?;
        let Value::Object(object) = value else {
            return Err(invalid("Body must be a JSON object"));
        };
        let text = |name: &str| -> ApiResult<Option<String>> {
            match object.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(text)) if text.chars().any(platform::validation::is_forbidden_control) => {
                    Err(invalid(format!("{name} must not contain control characters (tab and line breaks aside)")))
                }
                Some(Value::String(text)) => Ok(Some(text.clone())),
                Some(_) => Err(invalid(format!("{name} must be a string"))),
            }
        };

        let organization_name = text("organization_name")?
            .map(|name| name.trim().to_string())
            .ok_or_else(|| invalid("organization_name is required"))?;
        if organization_name.is_empty() {
            return Err(invalid("organization_name must not be empty"));
        }
        if organization_name.chars().count() > MAX_ORGANIZATION_NAME {
            return Err(invalid(format!("organization_name must be at most {MAX_ORGANIZATION_NAME} characters")));
        }

        let contact_email = text("contact_email")?
            .map(|email| email.trim().to_string())
            .ok_or_else(|| invalid("contact_email is required"))?;
        if !is_valid_email(&contact_email) {
            return Err(invalid("contact_email is not a valid e-mail address"));
        }

        let description = text("description")?;
        if description.as_ref().is_some_and(|d| d.chars().count() > MAX_DESCRIPTION) {
            return Err(invalid(format!("description must be at most {MAX_DESCRIPTION} characters")));
        }
        Ok(NewTenant { organization_name, contact_email, description })
    }

    /// The uniqueness key: names differing only in case or surrounding space clash.
    pub fn organization_key(&self) -> String {
        self.organization_name.to_lowercase()
    }
}

/// RFC 5322 syntax (via `email_address`), plus what a contact address needs in
/// practice: a dotted domain name, no IP literal, no display name.
pub fn is_valid_email(text: &str) -> bool {
    if text.len() > MAX_EMAIL {
        return false;
    }
    let Ok(address) = EmailAddress::from_str(text) else {
        return false;
    };
    let domain = address.domain();
    address.email() == text
        && !domain.starts_with('[')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
}

/// The 201 body: the only time the API key is ever shown.
#[derive(Debug, Serialize)]
pub struct CreatedTenant {
    pub tenant_id: TenantId,
    pub api_key: String,
    pub organization_name: String,
    pub contact_email: String,
    pub description: Option<String>,
    pub created_at: String,
}

/// Stores the tenant; 409 when the organization name is taken (in any case).
pub fn create(db: &Db, new: NewTenant) -> ApiResult<CreatedTenant> {
    let tenant_id = TenantId::new_random();
    let api_key = keys::generate_secret(keys::TENANT_KEY_PREFIX);
    let created_at = time::rfc3339_now();
    // One statement: the unique key decides, with no window between check and insert.
    let inserted = db.query(
        "INSERT INTO tenants (tenant_id, organization_name, organization_key, contact_email,
                              description, api_key_hash, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (organization_key) DO NOTHING
         RETURNING tenant_id",
        &[
            db::text(tenant_id),
            db::text(&new.organization_name),
            db::text(new.organization_key()),
            db::text(&new.contact_email),
            db::opt_text(new.description.as_deref()),
            db::text(keys::hash_secret(&api_key)),
            db::text(&created_at),
        ],
    )?;
    if inserted.rows.is_empty() {
        return Err(ApiError::TenantCreation {
            status: 409,
            code: "conflict",
            message: format!("A tenant named '{}' already exists", new.organization_name),
        });
    }
    Ok(CreatedTenant {
        tenant_id,
        api_key,
        organization_name: new.organization_name,
        contact_email: new.contact_email,
        description: new.description,
        created_at,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(body: &str) -> String {
        match NewTenant::parse(None, body.as_bytes()) {
            Err(ApiError::TenantCreation { status: 400, code: "invalid_request", message }) => message,
            other => panic!("expected 400 for {body}, got {other:?}"),
        }
    }

    #[test]
    fn parses_a_valid_request() {
        let tenant = NewTenant::parse(
            Some("application/json"),
            br#"{"organization_name":"  Acme Research ","contact_email":"ops@acme.example","description":null,"extra":1}"#,
        )
        .unwrap();
        assert_eq!(tenant.organization_name, "Acme Research");
        assert_eq!(tenant.organization_key(), "acme research");
        assert_eq!(tenant.description, None);
    }

    #[test]
    fn refuses_each_bad_input() {
        assert!(message("{not json").contains("JSON decode error: key must be a string at line 1 column 2"));
        assert!(message("").contains("A JSON body is required"));
        let typed = NewTenant::parse(Some("text/plain"), br#"{"organization_name":"A","contact_email":"a@b.co"}"#);
        assert!(matches!(typed, Err(ApiError::TenantCreation { status: 400, message, .. }) if message.contains("application/json")));
        assert!(message("[]").contains("object"));
        assert!(message(r#"{"contact_email":"a@b.co"}"#).contains("organization_name"));
        assert!(message(r#"{"organization_name":"  ","contact_email":"a@b.co"}"#).contains("empty"));
        assert!(message(r#"{"organization_name":5,"contact_email":"a@b.co"}"#).contains("string"));
        assert!(message(r#"{"organization_name":"A"}"#).contains("contact_email"));
        assert!(message(r#"{"organization_name":"A","contact_email":"nope"}"#).contains("e-mail"));
        let long = format!(r#"{{"organization_name":"{}","contact_email":"a@b.co"}}"#, "x".repeat(201));
        assert!(message(&long).contains("200"));
        let long = format!(
            r#"{{"organization_name":"A","contact_email":"a@b.co","description":"{}"}}"#,
            "x".repeat(2001)
        );
        assert!(message(&long).contains("2000"));
    }

    #[test]
    fn e_mail_rules() {
        for good in ["ops@acme.example", "first.last+tag@sub.example.co.uk"] {
            assert!(is_valid_email(good), "{good}");
        }
        for bad in ["", "plain", "@acme.example", "ops@", "ops@localhost", "a b@c.de", "ops@[127.0.0.1]", "Ops <ops@acme.example>", "ops@acme.example."] {
            assert!(!is_valid_email(bad), "{bad}");
        }
    }
}
