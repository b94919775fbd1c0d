//! Target URL policy: webhook targets must be public `https://` endpoints.
//!
//! Checked when subscribing and again before every delivery. The URL is parsed
//! with the `url` crate (WHATWG rules), so every spelling of an IPv4 address a
//! URL parser accepts (`2130706433`, `0x7f.1`, `127.1`, `0177.0.0.1`) is
//! normalised to its dotted form before the checks run.
//!
//! Components cannot resolve DNS names in Spin, so a *name* that resolves to a
//! private address can only be stopped by an egress policy outside the app
//! (see docs/webhooks.md).

use std::net::{Ipv4Addr, Ipv6Addr};
use url::{Host, Url};

/// Longest target URL accepted (the common browser limit).
pub const MAX_TARGET_URL: usize = 2083;

/// Why a target URL is refused; maps onto pydantic error types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetError {
    /// Not a URL at all (`url_parsing`).
    Parsing(String),
    /// A scheme other than https (or http when insecure targets are allowed) (`url_scheme`).
    Scheme(String),
    /// A URL that is not a public endpoint (`value_error`).
    NotPublic(String),
}

impl TargetError {
    pub fn kind(&self) -> &'static str {
        match self {
            TargetError::Parsing(_) => "url_parsing",
            TargetError::Scheme(_) => "url_scheme",
            TargetError::NotPublic(_) => "value_error",
        }
    }

    /// pydantic-style message.
    pub fn message(&self) -> String {
        match self {
            TargetError::Parsing(reason) => format!("Input should be a valid URL, {reason}"),
            TargetError::Scheme(expected) => format!("URL scheme should be {expected}"),
            TargetError::NotPublic(reason) => format!("Value error, target_url must be a public endpoint: {reason}"),
        }
    }
}

impl std::fmt::Display for TargetError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// What the policy admits besides public https endpoints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TargetPolicy {
    /// `webhook_allow_insecure_targets`: also `http://` and loopback targets
    /// (local development and tests only).
    pub allow_insecure: bool,
}

/// A target URL the policy admits: the text as given (trimmed), which is what
/// is stored and shown, and its parsed (normalised) form, which is what gets
/// called. Only [`TargetUrl::parse`] makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetUrl {
    text: String,
    url: Url,
}

impl TargetUrl {
    /// Parses and checks a target URL (when subscribing and before every delivery).
    pub fn parse(text: &str, policy: TargetPolicy) -> Result<TargetUrl, TargetError> {
        let text = text.trim();
        let url = admitted(text, policy)?;
        Ok(TargetUrl { text: text.to_string(), url })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The normalised URL a delivery calls.
    pub fn into_url(self) -> Url {
        self.url
    }
}

fn admitted(text: &str, policy: TargetPolicy) -> Result<Url, TargetError> {
    let url = Url::parse(text).map_err(|e| TargetError::Parsing(e.to_string()))?;
    match url.scheme() {
        "https" => {}
        "http" if policy.allow_insecure => {}
        _ => {
            let expected = if policy.allow_insecure { "'http' or 'https'" } else { "'https'" };
            return Err(TargetError::Scheme(expected.into()));
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(TargetError::NotPublic("credentials in the URL are not allowed".into()));
    }
    let refused = |what: &str| Err(TargetError::NotPublic(what.to_string()));
    match url.host() {
        None => return refused("the URL has no host"),
        Some(Host::Domain(domain)) => {
            if let Some(reason) = refused_domain(domain) {
                let loopback_name = is_loopback_name(domain);
                if !(policy.allow_insecure && loopback_name) {
                    return refused(&reason);
                }
            }
        }
        Some(Host::Ipv4(ip)) => {
            if let Some(reason) = refused_ipv4(ip) {
                if !(policy.allow_insecure && ip.is_loopback()) {
                    return refused(&reason);
                }
            }
        }
        Some(Host::Ipv6(ip)) => {
            if let Some(reason) = refused_ipv6(ip) {
                let loopback = ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback());
                if !(policy.allow_insecure && loopback) {
                    return refused(&reason);
                }
            }
        }
    }
    Ok(url)
}

fn is_loopback_name(domain: &str) -> bool {
    let domain = domain.trim_end_matches('.').to_ascii_lowercase();
    domain == "localhost" || domain.ends_with(".localhost")
}

/// Names that never denote a public endpoint.
fn refused_domain(domain: &str) -> Option<String> {
    let name = domain.trim_end_matches('.').to_ascii_lowercase();
    if name.is_empty() {
        return Some("the URL has no host".into());
    }
    if is_loopback_name(&name) {
        return Some(format!("'{name}' is a loopback name"));
    }
    for suffix in ["local", "internal", "localdomain", "home.arpa", "test", "invalid", "example"] {
        if name == suffix || name.ends_with(&format!(".{suffix}")) {
            return Some(format!("'{name}' is in the non-public '.{suffix}' domain"));
        }
    }
    if !name.contains('.') {
        return Some(format!("'{name}' is not a fully qualified domain name"));
    }
    None
}

/// `Some(reason)` when the IPv4 address is not a public unicast address.
pub fn refused_ipv4(ip: Ipv4Addr) -> Option<String> {
    let blocks: &[(Ipv4Addr, u8, &str)] = &[
        (Ipv4Addr::new(0, 0, 0, 0), 8, "unspecified ('this network')"),
        (Ipv4Addr::new(10, 0, 0, 0), 8, "private"),
        (Ipv4Addr::new(100, 64, 0, 0), 10, "carrier-grade NAT"),
        (Ipv4Addr::new(127, 0, 0, 0), 8, "loopback"),
        (Ipv4Addr::new(169, 254, 0, 0), 16, "link-local"),
        (Ipv4Addr::new(172, 16, 0, 0), 12, "private"),
        (Ipv4Addr::new(192, 0, 0, 0), 24, "reserved (IETF protocol assignments)"),
        (Ipv4Addr::new(192, 0, 2, 0), 24, "reserved (documentation)"),
        (Ipv4Addr::new(192, 88, 99, 0), 24, "reserved (6to4 relay)"),
        (Ipv4Addr::new(192, 168, 0, 0), 16, "private"),
        (Ipv4Addr::new(198, 18, 0, 0), 15, "reserved (benchmarking)"),
        (Ipv4Addr::new(198, 51, 100, 0), 24, "reserved (documentation)"),
        (Ipv4Addr::new(203, 0, 113, 0), 24, "reserved (documentation)"),
        (Ipv4Addr::new(224, 0, 0, 0), 4, "multicast"),
        (Ipv4Addr::new(240, 0, 0, 0), 4, "reserved (including broadcast)"),
    ];
    let value = u32::from(ip);
    blocks.iter().find_map(|(net, len, what)| {
        let mask = u32::MAX << (32 - *len as u32);
        (value & mask == u32::from(*net) & mask).then(|| format!("{ip} is a {what} address"))
    })
}

/// `Some(reason)` when the IPv6 address is not a public unicast address.
/// Only global unicast (2000::/3) is public, minus its special-purpose blocks;
/// addresses that embed an IPv4 address are judged by that address.
pub fn refused_ipv6(ip: Ipv6Addr) -> Option<String> {
    let value = u128::from(ip);
    let in_block = |net: u128, len: u32| value >> (128 - len) == net >> (128 - len);
    let embedded_v4 = Ipv4Addr::from((value & 0xffff_ffff) as u32);
    if ip.is_unspecified() {
        return Some(format!("{ip} is the unspecified address"));
    }
    if ip.is_loopback() {
        return Some(format!("{ip} is the loopback address"));
    }
    if let Some(v4) = ip.to_ipv4_mapped() {
        return refused_ipv4(v4).map(|reason| format!("{ip} maps to IPv4: {reason}"));
    }
    // NAT64 (64:ff9b::/96, 64:ff9b:1::/48) reaches the embedded IPv4 address.
    if in_block(0x0064_ff9b_0000_0000_0000_0000_0000_0000, 96) || in_block(0x0064_ff9b_0001 << 80, 48) {
        return refused_ipv4(embedded_v4).map(|reason| format!("{ip} translates to IPv4: {reason}"));
    }
    if in_block(0, 96) {
        return Some(format!("{ip} is a deprecated IPv4-compatible address"));
    }
    if in_block(0x2002 << 112, 16) {
        // 6to4: the IPv4 address sits in bits 16..48.
        let v4 = Ipv4Addr::from(((value >> 80) & 0xffff_ffff) as u32);
        return refused_ipv4(v4).map(|reason| format!("{ip} is 6to4 for IPv4: {reason}"));
    }
    if !in_block(0x2000 << 112, 3) {
        let what = if in_block(0xff00 << 112, 8) {
            "multicast"
        } else if in_block(0xfe80 << 112, 10) {
            "link-local"
        } else if in_block(0xfc00 << 112, 7) {
            "unique local (private)"
        } else if in_block(0xfec0 << 112, 10) {
            "site-local"
        } else {
            "reserved"
        };
        return Some(format!("{ip} is a {what} address"));
    }
    let special: &[(u128, u32, &str)] = &[
        (0x2001 << 112, 23, "reserved (IETF protocol assignments, Teredo)"),
        (0x2001_0db8 << 96, 32, "reserved (documentation)"),
        (0x3fff << 112, 20, "reserved (documentation)"),
    ];
    special
        .iter()
        .find(|(net, len, _)| in_block(*net, *len))
        .map(|(_, _, what)| format!("{ip} is a {what} address"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: TargetPolicy = TargetPolicy { allow_insecure: false };
    const INSECURE: TargetPolicy = TargetPolicy { allow_insecure: true };

    fn kind(url: &str, policy: TargetPolicy) -> Option<&'static str> {
        TargetUrl::parse(url, policy).err().map(|e| e.kind())
    }

    #[test]
    fn public_https_targets_pass() {
        for url in [
            "https://hooks.example.com/webhooks",
            "https://api.customer.io:8443/in?x=1",
            "https://8.8.8.8/hook",
            "https://[2606:4700:4700::1111]/hook",
            "https://[::ffff:8.8.8.8]/hook",
            "https://hooks.example.com./trailing-dot",
        ] {
            assert_eq!(kind(url, STRICT), None, "{url}");
        }
    }

    #[test]
    fn scheme_must_be_https() {
        assert_eq!(kind("http://hooks.example.com/", STRICT), Some("url_scheme"));
        assert_eq!(kind("ftp://hooks.example.com/", STRICT), Some("url_scheme"));
        assert_eq!(kind("ftp://hooks.example.com/", INSECURE), Some("url_scheme"));
        assert_eq!(kind("http://hooks.example.com/", INSECURE), None);
        assert_eq!(kind("not a url", STRICT), Some("url_parsing"));
        assert_eq!(kind("/relative", STRICT), Some("url_parsing"));
    }

    #[test]
    fn loopback_and_local_names_are_refused() {
        for url in [
            "https://localhost/",
            "https://LOCALHOST:8443/",
            "https://localhost./",
            "https://api.localhost/",
            "https://printer.local/",
            "https://metadata.google.internal/",
            "https://intranet/",
        ] {
            assert_eq!(kind(url, STRICT), Some("value_error"), "{url}");
        }
    }

    #[test]
    fn private_and_special_ipv4_literals_are_refused_in_every_spelling() {
        for url in [
            "https://127.0.0.1/",
            "https://127.1/",
            "https://2130706433/",
            "https://0x7f000001/",
            "https://0x7f.0.0.1/",
            "https://0177.0.0.1/",
            "https://10.1.2.3/",
            "https://172.16.0.1/",
            "https://172.31.255.255/",
            "https://192.168.1.1/",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/",
            "https://100.127.255.255/",
            "https://0.0.0.0/",
            "https://0/",
            "https://224.0.0.1/",
            "https://239.255.255.250/",
            "https://255.255.255.255/",
            "https://240.0.0.1/",
            "https://192.0.2.1/",
            "https://198.18.0.1/",
        ] {
            assert_eq!(kind(url, STRICT), Some("value_error"), "{url}");
        }
        assert_eq!(kind("https://100.128.0.1/", STRICT), None);
        assert_eq!(kind("https://172.32.0.1/", STRICT), None);
    }

    #[test]
    fn private_and_special_ipv6_literals_are_refused() {
        for url in [
            "https://[::1]/",
            "https://[::]/",
            "https://[0:0:0:0:0:0:0:1]/",
            "https://[::ffff:127.0.0.1]/",
            "https://[::ffff:7f00:1]/",
            "https://[::ffff:10.0.0.1]/",
            "https://[::ffff:169.254.169.254]/",
            "https://[::127.0.0.1]/",
            "https://[fe80::1]/",
            "https://[fc00::1]/",
            "https://[fd12:3456::1]/",
            "https://[ff02::1]/",
            "https://[2001:db8::1]/",
            "https://[2001::1]/",
            "https://[64:ff9b::a9fe:a9fe]/",
            "https://[2002:7f00:1::]/",
            "https://[fec0::1]/",
        ] {
            assert_eq!(kind(url, STRICT), Some("value_error"), "{url}");
        }
        assert_eq!(kind("https://[64:ff9b::808:808]/", STRICT), None);
        assert_eq!(kind("https://[2002:808:808::1]/", STRICT), None);
    }

    #[test]
    fn credentials_are_refused() {
        assert_eq!(kind("https://user:pw@hooks.example.com/", STRICT), Some("value_error"));
        assert_eq!(kind("https://user@hooks.example.com/", STRICT), Some("value_error"));
    }

    #[test]
    fn insecure_mode_admits_http_and_loopback_only() {
        for url in ["http://127.0.0.1:8080/hook", "http://localhost:9000/", "http://[::1]:9000/", "https://127.0.0.1/"] {
            assert_eq!(kind(url, INSECURE), None, "{url}");
        }
        for url in ["http://10.0.0.1/", "http://169.254.169.254/", "http://printer.local/", "http://[fe80::1]/"] {
            assert_eq!(kind(url, INSECURE), Some("value_error"), "{url}");
        }
    }

    #[test]
    fn messages_read_like_pydantic() {
        let error = TargetUrl::parse("http://hooks.example.com", STRICT).unwrap_err();
        assert_eq!(error.message(), "URL scheme should be 'https'");
        let error = TargetUrl::parse("https://10.0.0.1", STRICT).unwrap_err();
        assert!(error.message().starts_with("Value error, "), "{}", error.message());
    }
}
