//! Credentials: parsing the two headers, and checking them against what is stored.

use crate::error::{ApiError, Credential};
use crate::keys;
use crate::ids::TenantId;

pub const API_KEY_HEADER: &str = "x-api-key";
pub const TENANT_ID_HEADER: &str = "x-tenant-id";

/// The two authentication headers, present and well-formed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credentials {
    pub api_key: String,
    pub tenant_id: TenantId,
}

impl Credentials {
    /// Any missing, empty or malformed header is the same 401.
    pub fn from_headers<'a>(
        header: impl Fn(&str) -> Option<&'a str>,
    ) -> Result<Credentials, ApiError> {
        let api_key = header(API_KEY_HEADER).map(str::trim).filter(|k| !k.is_empty());
        let tenant_id = header(TENANT_ID_HEADER).and_then(|t| TenantId::parse(t.trim()));
        match (api_key, tenant_id) {
            (Some(api_key), Some(tenant_id)) => {
                Ok(Credentials { api_key: api_key.to_string(), tenant_id })
            }
            _ => Err(ApiError::Unauthorized(Credential::TenantKey)),
        }
    }
}

/// The 401 of a tenant route for the `X-Api-Key` that came: it says how to
/// authenticate, and that a partnership key is the wrong credential when one
/// was sent.
pub fn tenant_refusal(api_key: Option<&str>) -> ApiError {
    let partnership = api_key.is_some_and(|key| key.trim().starts_with(PARTNER_KEY_PREFIX));
    ApiError::Unauthorized(if partnership { Credential::PartnershipKeyOnTenantRoute } else { Credential::TenantKey })
}

/// A tenant whose credentials were checked. Only [`authenticate`] makes one
/// (its id is private), so a handler given a `Tenant` knows who is asking;
/// and the pipeline, for a read-only handler whose storage answers nothing
/// before the same check passed ([`Tenant::claimed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tenant {
    id: TenantId,
}

impl Tenant {
    /// The tenant the credentials name, before their key is checked: only for
    /// the request pipeline, which hands it to a read-only handler whose
    /// records answer nothing until the admission's check (the same
    /// [`authenticate`]) passed, and answers that check's 401 whatever the
    /// handler did (`storage::admission`).
    pub fn claimed(credentials: &Credentials) -> Tenant {
        Tenant { id: credentials.tenant_id }
    }

    pub fn id(&self) -> TenantId {
        self.id
    }

    /// A tenant as if authenticated, for the unit tests of the crates above.
    #[cfg(any(test, feature = "testing"))]
    pub fn authenticated_for_tests(id: TenantId) -> Tenant {
        Tenant { id }
    }
}

/// Checks credentials against the key hash stored for their tenant id (None when
/// no such tenant). An unknown tenant still costs a hash and a comparison, so
/// timing does not tell unknown tenants from wrong keys.
pub fn authenticate(credentials: &Credentials, stored_hash: Option<&str>) -> Result<Tenant, ApiError> {
    const NO_TENANT: &str = "0000000000000000000000000000000000000000000000000000000000000000";
    let matches = keys::secret_matches(&credentials.api_key, stored_hash.unwrap_or(NO_TENANT));
    if matches && stored_hash.is_some() {
        Ok(Tenant { id: credentials.tenant_id })
    } else {
        Err(tenant_refusal(Some(&credentials.api_key)))
    }
}

/// The operator's partnership credentials, from Spin variables.
#[derive(Debug, Clone)]
pub struct PartnerConfig {
    pub api_key: String,
    pub tenant_id: String,
    pub scopes: Vec<String>,
}

pub const PARTNER_KEY_PREFIX: &str = "sk-partner-";
pub const TENANT_CREATE_SCOPE: &str = "tenants:create";

impl PartnerConfig {
    /// Spin variables `partner_api_key`, `partner_tenant_id`, `partner_scopes`.
    pub fn from_variables() -> PartnerConfig {
        use crate::config::var_or;
        PartnerConfig {
            api_key: var_or("partner_api_key", ""),
            tenant_id: var_or("partner_tenant_id", ""),
            scopes: parse_scopes(&var_or("partner_scopes", TENANT_CREATE_SCOPE)),
        }
    }
}

/// Checks a partnership key for tenant creation. Failures use the tenant-creation
/// body shape `{error,message}`.
pub fn authorize_partner(credentials: Option<&Credentials>, config: &PartnerConfig) -> Result<(), ApiError> {
    let unauthorized = || ApiError::TenantCreation {
        status: 401,
        code: "unauthorized",
        message: "Invalid or missing partnership key".into(),
    };
    let credentials = credentials.ok_or_else(unauthorized)?;
    let configured_tenant = TenantId::parse(config.tenant_id.trim());
    // An unset or malformed key in the configuration disables tenant creation.
    let key_configured = config.api_key.starts_with(PARTNER_KEY_PREFIX);
    let key_matches = keys::constant_time_eq(
        keys::hash_secret(&credentials.api_key).as_bytes(),
        keys::hash_secret(&config.api_key).as_bytes(),
    );
    if !(key_configured
        && key_matches
        && credentials.api_key.starts_with(PARTNER_KEY_PREFIX)
        && configured_tenant == Some(credentials.tenant_id))
    {
        return Err(unauthorized());
    }
    if !config.scopes.iter().any(|scope| scope == TENANT_CREATE_SCOPE) {
        return Err(ApiError::TenantCreation {
            status: 401,
            code: "insufficient_scope",
            message: format!("The partnership key lacks the {TENANT_CREATE_SCOPE} scope"),
        });
    }
    Ok(())
}

/// The token of an `Authorization: Bearer <token>` header (an operator's, an
/// interviewee's session); none for another scheme or an empty token.
pub fn bearer_token(authorization: Option<&str>) -> Option<&str> {
    let (scheme, token) = authorization?.trim().split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
}

/// The variable holding the operator's token for the maintenance route.
pub const OPERATOR_TOKEN_VARIABLE: &str = "maintenance_token";

/// Checks `Authorization: Bearer <token>` against the configured operator token.
/// Both are hashed first, so the comparison takes the same time whatever the
/// lengths; any failure is the same 401.
pub fn authorize_operator(authorization: Option<&str>, configured: &str) -> Result<(), ApiError> {
    let given = bearer_token(authorization).unwrap_or_default();
    let matches = keys::constant_time_eq(keys::hash_secret(given).as_bytes(), keys::hash_secret(configured).as_bytes());
    if matches && !given.is_empty() && !configured.is_empty() {
        Ok(())
    } else {
        Err(ApiError::Unauthorized(Credential::OperatorToken))
    }
}

/// `"tenants:create, other"` -> `["tenants:create", "other"]`.
pub fn parse_scopes(text: &str) -> Vec<String> {
    text.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TENANT: &str = "6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10";

    fn headers<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> + 'a {
        move |name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    #[test]
    fn parses_both_headers() {
        let credentials =
            Credentials::from_headers(headers(&[("x-api-key", " k "), ("x-tenant-id", TENANT)])).unwrap();
        assert_eq!(credentials.api_key, "k");
        assert_eq!(credentials.tenant_id.to_string(), TENANT);
    }

    #[test]
    fn any_missing_or_malformed_header_is_unauthorized() {
        for pairs in [
            vec![("x-tenant-id", TENANT)],
            vec![("x-api-key", "k")],
            vec![("x-api-key", ""), ("x-tenant-id", TENANT)],
            vec![("x-api-key", "k"), ("x-tenant-id", "not-a-uuid")],
        ] {
            assert!(matches!(Credentials::from_headers(headers(&pairs)), Err(ApiError::Unauthorized(_))));
        }
    }

    #[test]
    fn authenticate_needs_a_stored_hash_that_matches() {
        let credentials = Credentials { api_key: "irs_key".into(), tenant_id: TenantId::parse(TENANT).unwrap() };
        let stored = keys::hash_secret("irs_key");
        assert_eq!(authenticate(&credentials, Some(&stored)).unwrap().id().to_string(), TENANT);
        assert!(authenticate(&credentials, Some(&keys::hash_secret("other"))).is_err());
        assert!(authenticate(&credentials, None).is_err());
    }

    fn partner() -> PartnerConfig {
        PartnerConfig {
            api_key: "sk-partner-secret".into(),
            tenant_id: TENANT.into(),
            scopes: parse_scopes("tenants:create"),
        }
    }

    fn partner_credentials(key: &str, tenant: &str) -> Credentials {
        Credentials { api_key: key.into(), tenant_id: TenantId::parse(tenant).unwrap() }
    }

    fn error_code(result: Result<(), ApiError>) -> &'static str {
        match result {
            Err(ApiError::TenantCreation { status: 401, code, .. }) => code,
            other => panic!("expected 401, got {other:?}"),
        }
    }

    #[test]
    fn partner_key_must_match_key_tenant_and_scope() {
        let config = partner();
        assert!(authorize_partner(Some(&partner_credentials("sk-partner-secret", TENANT)), &config).is_ok());
        assert_eq!(error_code(authorize_partner(None, &config)), "unauthorized");
        assert_eq!(
            error_code(authorize_partner(Some(&partner_credentials("sk-partner-wrong", TENANT)), &config)),
            "unauthorized"
        );
        assert_eq!(
            error_code(authorize_partner(
                Some(&partner_credentials("sk-partner-secret", "00000000-0000-4000-8000-000000000000")),
                &config
            )),
            "unauthorized"
        );
        let no_scope = PartnerConfig { scopes: parse_scopes("projects:read"), ..partner() };
        assert_eq!(
            error_code(authorize_partner(Some(&partner_credentials("sk-partner-secret", TENANT)), &no_scope)),
            "insufficient_scope"
        );
    }

    #[test]
    fn partner_key_without_prefix_or_unset_disables_creation() {
        for key in ["", "plain-secret"] {
            let config = PartnerConfig { api_key: key.into(), ..partner() };
            assert!(authorize_partner(Some(&partner_credentials(key, TENANT)), &config).is_err());
        }
    }

    #[test]
    fn the_operator_token_is_a_bearer_credential() {
        assert!(authorize_operator(Some("Bearer s3cret"), "s3cret").is_ok());
        assert!(authorize_operator(Some("bearer  s3cret "), "s3cret").is_ok());
        for given in [None, Some("s3cret"), Some("Bearer wrong"), Some("Basic s3cret"), Some("Bearer ")] {
            assert!(matches!(authorize_operator(given, "s3cret"), Err(ApiError::Unauthorized(Credential::OperatorToken))), "{given:?}");
        }
        assert!(authorize_operator(Some("Bearer "), "").is_err(), "an empty configured token admits nobody");
    }

    #[test]
    fn scopes_are_a_comma_list() {
        assert_eq!(parse_scopes(" tenants:create , x ,,"), vec!["tenants:create", "x"]);
    }
}
