-- The interviewee side under abuse and flaky networks (issue 26).
-- Every statement is idempotent: components may run migrations concurrently
-- (an ADD COLUMN that another instance applied first is skipped).

-- Sandbox links are capabilities (projects/share.rs): a sandbox link carries
-- an HMAC of its project under this per-tenant secret (base64url of 32 random
-- bytes), made when the tenant first asks for a sandbox URL and replaced by
-- POST /v1/sandbox-links/rotate. NULL: the tenant never had a sandbox link.
ALTER TABLE tenants ADD COLUMN sandbox_secret TEXT;
