//! `allowed_outbound_hosts` (Spin's `spin-outbound-networking-config` syntax)
//! and the `wasi:http` hook that enforces it on outgoing requests.
//!
//! An entry is `scheme://host[:port]`: `*` may stand for the scheme, the host
//! or the port; a host may be `*.example.com` (any subdomain, not the domain
//! itself), an IP or a CIDR range; a port may be a range `8000..9000`; an omitted
//! port means the scheme's well-known port. An empty list denies everything.

use std::future::Future;
use std::net::IpAddr;
use std::ops::Range;

use anyhow::{bail, Context, Result};
use ipnet::IpNet;
use wasmtime_wasi_http::{Error as HttpError, RequestOptions, WasiBody, WasiHttpHooks};

#[derive(Debug, Clone, PartialEq)]
enum SchemeCfg {
    Any,
    One(String),
}

#[derive(Debug, Clone, PartialEq)]
enum HostCfg {
    Any,
    /// `*.example.com`, stored as `.example.com`.
    AnySubdomain(String),
    /// `self`: the app itself (service chaining), which this host does not route.
    ToSelf,
    Exact(String),
    Cidr(IpNet),
}

#[derive(Debug, Clone, PartialEq)]
enum PortCfg {
    Any,
    Port(u16),
    Range(Range<u16>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct AllowedHost {
    original: String,
    scheme: SchemeCfg,
    host: HostCfg,
    port: PortCfg,
}

fn well_known_port(scheme: &str) -> Option<u16> {
    match scheme {
        "postgres" => Some(5432),
        "mysql" => Some(3306),
        "redis" => Some(6379),
        "mqtt" => Some(1883),
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

impl AllowedHost {
    pub fn parse(entry: &str) -> Result<AllowedHost> {
        let original = entry.to_string();
        let url = entry.trim();
        if url.contains("{{") {
            bail!("{url:?}: templated allowed_outbound_hosts are not supported by this host");
        }
        let Some((scheme, rest)) = url.split_once("://") else {
            bail!("{url:?} does not contain a scheme (e.g., 'http://' or '*://')");
        };
        let (host, rest) = rest.rsplit_once(':').unwrap_or((rest, ""));
        let port = match rest.split_once('/') {
            Some((port, path)) => {
                if !path.is_empty() {
                    bail!("{url:?} has a path but is not allowed to");
                }
                port
            }
            None => rest,
        };

        let scheme_cfg = if scheme == "*" {
            SchemeCfg::Any
        } else if scheme.is_empty() || scheme.chars().any(|c| !c.is_alphabetic()) {
            bail!("{url:?}: scheme {scheme:?} contains non alphabetic character");
        } else {
            SchemeCfg::One(scheme.to_string())
        };

        let host = host.trim();
        let host_cfg = if host == "*" {
            HostCfg::Any
        } else if host == "self" || host == "self.alt" {
            HostCfg::ToSelf
        } else if let Some(cidr) = parse_cidr(host) {
            cidr
        } else if matches!(host.split('/').nth(1), Some(p) if !p.is_empty()) {
            bail!("{url:?}: hosts must not contain paths");
        } else if let Some(domain) = host.strip_prefix("*.") {
            if domain.contains('*') {
                bail!("{url:?}: wildcards are allowed only as prefixes");
            }
            HostCfg::AnySubdomain(format!(".{domain}"))
        } else if host.contains('*') {
            bail!("{url:?}: wildcards are allowed only as subdomains");
        } else {
            HostCfg::Exact(host.trim_end_matches('/').to_string())
        };

        let port_cfg = if port.is_empty() {
            PortCfg::Port(well_known_port(scheme).with_context(|| {
                format!("{url:?}: no port was provided and the scheme {scheme:?} does not have a known default port number")
            })?)
        } else if port == "*" {
            PortCfg::Any
        } else if let Some((start, end)) = port.split_once("..") {
            let start = start
                .parse()
                .with_context(|| format!("port range {port:?} contains non-number"))?;
            let end = end
                .parse()
                .with_context(|| format!("port range {port:?} contains non-number"))?;
            PortCfg::Range(start..end)
        } else {
            PortCfg::Port(
                port.parse()
                    .with_context(|| format!("port {port:?} is not a number"))?,
            )
        };

        Ok(AllowedHost {
            original,
            scheme: scheme_cfg,
            host: host_cfg,
            port: port_cfg,
        })
    }

    fn allows(&self, scheme: &str, host: &str, port: Option<u16>) -> bool {
        let scheme_ok = match &self.scheme {
            SchemeCfg::Any => true,
            SchemeCfg::One(s) => s == scheme,
        };
        let host_ok = match &self.host {
            HostCfg::Any => true,
            HostCfg::AnySubdomain(suffix) => host.ends_with(suffix.as_str()),
            HostCfg::ToSelf => false,
            HostCfg::Exact(h) => h == host,
            HostCfg::Cidr(net) => host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .is_ok_and(|ip| net.contains(&ip)),
        };
        let port_ok = match &self.port {
            PortCfg::Any => true,
            other => match port.or_else(|| well_known_port(scheme)) {
                None => false,
                Some(p) => match other {
                    PortCfg::Port(x) => *x == p,
                    PortCfg::Range(r) => r.contains(&p),
                    PortCfg::Any => true,
                },
            },
        };
        scheme_ok && host_ok && port_ok
    }
}

impl std::fmt::Display for AllowedHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.original)
    }
}

/// `10.0.0.0/8`, `::1/128` or a bare IP (a one-address network). Host bits
/// are dropped (`10.1.2.3/8` is `10.0.0.0/8`), as Spin's `ip_network`
/// `from_str_truncate` does.
fn parse_cidr(host: &str) -> Option<HostCfg> {
    let (ip, prefix) = host.split_once('/').map_or((host, None), |(ip, prefix)| (ip, Some(prefix)));
    let ip: IpAddr = ip.trim_start_matches('[').trim_end_matches(']').parse().ok()?;
    let net = match prefix {
        None => IpNet::from(ip),
        Some(prefix) => IpNet::new(ip, prefix.parse().ok()?).ok()?.trunc(),
    };
    Some(HostCfg::Cidr(net))
}

/// A component's parsed `allowed_outbound_hosts`.
#[derive(Debug, Clone, Default)]
pub struct AllowedHosts(Vec<AllowedHost>);

impl AllowedHosts {
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<AllowedHosts> {
        if entries.len() == 1 && entries[0].as_ref() == "insecure:allow-all" {
            bail!("'insecure:allow-all' is not allowed - use '*://*:*' instead if you really want to allow all outbound traffic'");
        }
        entries
            .iter()
            .map(|e| AllowedHost::parse(e.as_ref()))
            .collect::<Result<Vec<_>>>()
            .map(AllowedHosts)
    }

    /// Whether a request to this URI may be sent.
    pub fn allows_uri(&self, uri: &http::Uri) -> bool {
        let scheme = uri.scheme_str().unwrap_or("https");
        let Some(authority) = uri.authority() else {
            return false;
        };
        self.0
            .iter()
            .any(|h| h.allows(scheme, authority.host(), authority.port_u16()))
    }

    /// Whether `url` (e.g. `https://example.com:8443/x`) may be requested.
    pub fn allows_url(&self, url: &str) -> bool {
        url.parse::<http::Uri>().is_ok_and(|u| self.allows_uri(&u))
    }
}

/// Per-instance `wasi:http` hooks: checks each outgoing request against the
/// component's allow list, then sends it with wasmtime-wasi-http's default
/// sender (TLS via rustls; redirects are not followed).
pub struct OutboundHooks {
    pub component: String,
    pub allowed: std::sync::Arc<AllowedHosts>,
}

type SendResult = Result<
    (
        http::Response<WasiBody>,
        Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ),
    HttpError,
>;

impl WasiHttpHooks for OutboundHooks {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        fut: Box<dyn Future<Output = Result<(), HttpError>> + Send>,
    ) -> Box<dyn Future<Output = SendResult> + Send> {
        let _ = fut;
        if !self.allowed.allows_uri(request.uri()) {
            let uri = request.uri();
            let scheme = uri.scheme_str().unwrap_or("https");
            let host = uri.authority().map(|a| a.to_string()).unwrap_or_default();
            eprintln!(
                "A component tried to make an outbound network connection to disallowed destination '{scheme}://{host}'.\n\
                 To allow this request, add 'allowed_outbound_hosts = [\"{scheme}://{host}\"]' to the manifest component section (component '{}').",
                self.component
            );
            return Box::new(async { Err(HttpError::HttpRequestDenied) });
        }
        Box::new(async move {
            use http_body_util::BodyExt;
            let (res, io) = wasmtime_wasi_http::default_send_request(request, options).await?;
            Ok((
                res.map(BodyExt::boxed_unsync),
                Box::new(io) as Box<dyn Future<Output = Result<(), HttpError>> + Send>,
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allows(entries: &[&str], url: &str) -> bool {
        AllowedHosts::parse(entries).unwrap().allows_url(url)
    }

    #[test]
    fn empty_list_denies_everything() {
        assert!(!allows(&[], "https://example.com/"));
        assert!(!allows(&[], "http://127.0.0.1:8080/"));
    }

    #[test]
    fn wildcards() {
        let all = ["https://*:*", "http://127.0.0.1:*"];
        assert!(allows(&all, "https://api.example.com/v1"));
        assert!(allows(&all, "https://api.example.com:8443/v1"));
        assert!(allows(&all, "http://127.0.0.1:3000/x"));
        assert!(allows(&all, "http://127.0.0.1/x"));
        assert!(!allows(&all, "http://example.com/"));
        assert!(!allows(&all, "http://localhost:3000/"));
        assert!(allows(&["*://*:*"], "http://anything:1234/"));
    }

    #[test]
    fn default_ports_by_scheme() {
        assert!(allows(&["https://example.com"], "https://example.com/x"));
        assert!(allows(
            &["https://example.com"],
            "https://example.com:443/x"
        ));
        assert!(!allows(
            &["https://example.com"],
            "https://example.com:8443/x"
        ));
        assert!(!allows(&["https://example.com"], "http://example.com/x"));
        assert!(allows(&["http://example.com"], "http://example.com:80/"));
        assert!(allows(
            &["http://example.com:8080"],
            "http://example.com:8080/"
        ));
        assert!(!allows(&["http://example.com:8080"], "http://example.com/"));
    }

    #[test]
    fn subdomain_wildcard() {
        let l = ["https://*.example.com"];
        assert!(allows(&l, "https://api.example.com/"));
        assert!(allows(&l, "https://a.b.example.com/"));
        assert!(!allows(&l, "https://example.com/"));
        assert!(!allows(&l, "https://badexample.com/"));
    }

    #[test]
    fn port_ranges_and_cidr() {
        assert!(allows(
            &["http://127.0.0.1:8000..9000"],
            "http://127.0.0.1:8500/"
        ));
        assert!(!allows(
            &["http://127.0.0.1:8000..9000"],
            "http://127.0.0.1:9000/"
        ));
        assert!(allows(&["http://10.0.0.0/8:*"], "http://10.1.2.3:99/"));
        assert!(!allows(&["http://10.0.0.0/8:*"], "http://11.1.2.3:99/"));
        assert!(allows(&["http://[::1]:*"], "http://[::1]:5000/"));
        // Host bits are dropped, as Spin's ip_network truncates them.
        assert!(allows(&["http://10.9.9.9/8:*"], "http://10.1.2.3:99/"));
        assert!(allows(&["http://[fd00::1]/8:*"], "http://[fd12::7]:99/"));
        assert!(!allows(&["http://[fd00::1]/8:*"], "http://[fe80::7]:99/"));
        assert!(AllowedHosts::parse(&["http://10.0.0.0/33:*"]).is_err(), "a prefix longer than the address");
    }

    #[test]
    fn invalid_entries() {
        for bad in [
            "example.com",
            "*",
            "https://example.com/path",
            "https://ex*ample.com",
            "ftp://example.com",
            "https://example.com:notaport",
            "insecure:allow-all",
        ] {
            assert!(AllowedHosts::parse(&[bad]).is_err(), "{bad}");
        }
        assert!(AllowedHosts::parse(&["https://example.com/"]).is_ok());
    }

    #[test]
    fn self_is_not_routed() {
        assert!(!allows(&["http://self"], "http://self/"));
    }
}
