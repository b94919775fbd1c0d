//! HTTP route matching, mirroring Spin's router (`spin-http/src/routes.rs`),
//! which is built on the `routefinder` crate:
//! - exact routes (`/v1/tenants`), `:name` segments, trailing wildcards
//!   (`/v1/projects/...` matches `/v1/projects` and everything below it) and
//!   the catch-all `/...`;
//! - the most specific route wins (exact beats `:param` beats wildcard, and
//!   a longer prefix beats a shorter one), whatever the manifest order;
//! - a duplicated route: the last one wins (Spin logs the others as unreachable).

use std::collections::HashMap;
use std::fmt;

use anyhow::{anyhow, Result};

#[derive(Debug, Clone)]
struct Handler {
    component: String,
    /// The route as written in the manifest.
    raw_route: String,
    /// The route combined with the base `/` (a trailing `/` is stripped, so `/` becomes ``).
    based_route: String,
    display: ParsedRoute,
}

#[derive(Debug, Clone)]
enum ParsedRoute {
    Exact(String),
    TrailingWildcard(String),
}

impl fmt::Display for ParsedRoute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParsedRoute::Exact(p) => write!(f, "{p}"),
            ParsedRoute::TrailingWildcard(p) => write!(f, "{p} (wildcard)"),
        }
    }
}

pub struct Router {
    inner: routefinder::Router<Handler>,
    /// (component, replaced route) pairs dropped as duplicates.
    pub duplicates: Vec<(String, String)>,
}

/// What a request path matched; the values of Spin's `spin-*` request headers.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteMatch {
    pub component: String,
    /// `spin-matched-route`: the based route, e.g. `/v1/projects/...`.
    pub matched_route: String,
    /// `spin-raw-component-route`: the route as in the manifest.
    pub raw_component_route: String,
    /// `spin-component-route`: the raw route without a trailing `/...`.
    pub component_route: String,
    /// `spin-path-info`: the part of the path the trailing wildcard matched.
    pub path_info: String,
    /// `:name` captures, for `spin-path-match-<name>` headers.
    pub params: Vec<(String, String)>,
}

impl Router {
    /// Builds the router from `(component, route)` pairs in manifest order.
    pub fn build<'a>(routes: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Router> {
        // Deduplicate by raw route, keeping manifest order, last one wins.
        let mut order: Vec<String> = Vec::new();
        let mut by_route: HashMap<String, String> = HashMap::new();
        let mut duplicates = Vec::new();
        for (component, route) in routes {
            if let Some(old) = by_route.insert(route.to_string(), component.to_string()) {
                duplicates.push((old, route.to_string()));
            } else {
                order.push(route.to_string());
            }
        }
        let mut inner = routefinder::Router::new();
        for raw in order {
            let component = by_route[&raw].clone();
            let based = sanitize_with_base("/", &raw);
            let (spec, display) = parse_route(&based).map_err(|e| {
                anyhow!("Error parsing route {based} associated with component {component}: {e}")
            })?;
            let handler = Handler {
                component,
                raw_route: raw,
                based_route: based,
                display,
            };
            inner.add(spec, handler).map_err(|e| anyhow!("{e}"))?;
        }
        Ok(Router { inner, duplicates })
    }

    /// `(component, display route)` for the startup banner, e.g. `/v1/projects (wildcard)`.
    pub fn routes(&self) -> Vec<(String, String)> {
        self.inner
            .iter()
            .map(|(_, h)| (h.component.clone(), h.display.to_string()))
            .collect()
    }

    /// Routes a request path (without the query), or `None` for a 404.
    pub fn route(&self, path: &str) -> Option<RouteMatch> {
        let m = self.inner.best_match(path)?;
        let h = m.handler();
        let captures = m.captures();
        // Spin keeps trailing slashes in the wildcard part, routefinder drops them.
        let path_info = captures
            .wildcard()
            .map(|s| match (s.is_empty(), path.ends_with('/')) {
                (true, false) => s.to_string(),
                (true, true) => "/".to_string(),
                (false, false) => format!("/{s}"),
                (false, true) => format!("/{s}/"),
            })
            .unwrap_or_default();
        let params = captures
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Some(RouteMatch {
            component: h.component.clone(),
            matched_route: h.based_route.clone(),
            raw_component_route: h.raw_route.clone(),
            component_route: h
                .raw_route
                .strip_suffix("/...")
                .unwrap_or(&h.raw_route)
                .to_string(),
            path_info,
            params,
        })
    }
}

fn parse_route(based: &str) -> Result<(routefinder::RouteSpec, ParsedRoute), String> {
    if let Some(prefix) = based.strip_suffix("/...") {
        let spec = format!("{prefix}/*").as_str().try_into()?;
        Ok((spec, ParsedRoute::TrailingWildcard(prefix.to_string())))
    } else if let Some(prefix) = based.strip_suffix("/*") {
        let spec = based.try_into()?;
        Ok((spec, ParsedRoute::TrailingWildcard(prefix.to_string())))
    } else {
        let spec = based.try_into()?;
        Ok((spec, ParsedRoute::Exact(based.to_string())))
    }
}

/// Spin joins the base (always `/` here) and the route, each without one
/// trailing slash, and makes the route absolute.
fn sanitize_with_base(base: &str, route: &str) -> String {
    let route = if route.starts_with('/') {
        route.to_string()
    } else {
        format!("/{route}")
    };
    let strip = |s: &str| s.strip_suffix('/').unwrap_or(s).to_string();
    format!("{}{}", strip(base), strip(&route))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router(routes: &[(&str, &str)]) -> Router {
        Router::build(routes.iter().copied()).unwrap()
    }

    fn component(r: &Router, path: &str) -> Option<String> {
        r.route(path).map(|m| m.component)
    }

    #[test]
    fn exact_routes() {
        let r = router(&[("foo", "/foo"), ("foobar", "/foo/bar")]);
        assert_eq!(component(&r, "/foo").as_deref(), Some("foo"));
        assert_eq!(component(&r, "/foo/bar").as_deref(), Some("foobar"));
        assert_eq!(component(&r, "/foo/baz"), None);
        assert_eq!(component(&r, "/"), None);
        let m = r.route("/foo").unwrap();
        assert_eq!(m.path_info, "");
        assert_eq!(m.matched_route, "/foo");
        assert_eq!(m.raw_component_route, "/foo");
        assert_eq!(m.component_route, "/foo");
    }

    #[test]
    fn catch_all() {
        let r = router(&[("all", "/...")]);
        for p in ["/foo/bar", "/abc/", "/", "/this/should/be/captured"] {
            assert_eq!(component(&r, p).as_deref(), Some("all"), "{p}");
        }
        assert_eq!(r.route("/1/2/3").unwrap().path_info, "/1/2/3");
        assert_eq!(r.route("/").unwrap().path_info, "/");
        let m = r.route("/x").unwrap();
        assert_eq!(m.matched_route, "/...");
        assert_eq!(m.raw_component_route, "/...");
        assert_eq!(m.component_route, "");
    }

    #[test]
    fn wildcard_matches_its_own_prefix_and_keeps_trailing_slash() {
        let r = router(&[("comp", "/test/...")]);
        assert_eq!(r.route("/test").unwrap().path_info, "");
        assert_eq!(r.route("/test/").unwrap().path_info, "/");
        assert_eq!(r.route("/test/hello").unwrap().path_info, "/hello");
        assert_eq!(r.route("/test/hello/").unwrap().path_info, "/hello/");
        assert_eq!(component(&r, "/testing"), None);
        let m = r.route("/test/a").unwrap();
        assert_eq!(m.matched_route, "/test/...");
        assert_eq!(m.raw_component_route, "/test/...");
        assert_eq!(m.component_route, "/test");
    }

    #[test]
    fn longest_wildcard_prefix_wins_regardless_of_order() {
        let routes = [
            ("one", "/one/..."),
            ("onetwo", "/one/two/..."),
            ("onetwothree", "/one/two/three/..."),
        ];
        let mut reversed = routes;
        reversed.reverse();
        for rs in [routes, reversed] {
            let r = router(&rs);
            assert_eq!(
                component(&r, "/one/two/three/four").as_deref(),
                Some("onetwothree")
            );
            assert_eq!(component(&r, "/one/two/x").as_deref(), Some("onetwo"));
            assert_eq!(component(&r, "/one").as_deref(), Some("one"));
            assert_eq!(r.route("/one/two/x").unwrap().path_info, "/x");
        }
    }

    #[test]
    fn exact_beats_param_beats_wildcard() {
        let r = router(&[
            ("wild", "/..."),
            ("things_wild", "/v1/things/..."),
            ("thing", "/v1/things/:id"),
            ("special", "/v1/things/special"),
        ]);
        assert_eq!(
            component(&r, "/v1/things/special").as_deref(),
            Some("special")
        );
        assert_eq!(component(&r, "/v1/things/42").as_deref(), Some("thing"));
        assert_eq!(
            component(&r, "/v1/things/42/sub").as_deref(),
            Some("things_wild")
        );
        assert_eq!(component(&r, "/v1/things").as_deref(), Some("things_wild"));
        assert_eq!(component(&r, "/elsewhere").as_deref(), Some("wild"));
        let m = r.route("/v1/things/42").unwrap();
        assert_eq!(m.params, vec![("id".to_string(), "42".to_string())]);
        assert_eq!(m.path_info, "");
        assert_eq!(m.matched_route, "/v1/things/:id");
    }

    #[test]
    fn exact_beats_catch_all() {
        let r = router(&[("wild", "/..."), ("one", "/one")]);
        assert_eq!(component(&r, "/one").as_deref(), Some("one"));
        assert_eq!(component(&r, "/two").as_deref(), Some("wild"));
    }

    #[test]
    fn params_with_trailing_wildcard() {
        let r = router(&[("c", "/foo/:userid/...")]);
        let m = r.route("/foo/42/bar").unwrap();
        assert_eq!(m.params, vec![("userid".to_string(), "42".to_string())]);
        assert_eq!(m.path_info, "/bar");
        assert_eq!(m.component_route, "/foo/:userid");
    }

    #[test]
    fn duplicates_last_one_wins() {
        let r = router(&[("first", "/foo"), ("second", "/foo"), ("root", "/")]);
        assert_eq!(component(&r, "/foo").as_deref(), Some("second"));
        assert_eq!(
            r.duplicates,
            vec![("first".to_string(), "/foo".to_string())]
        );
        assert_eq!(component(&r, "/").as_deref(), Some("root"));
    }

    #[test]
    fn display_routes() {
        let r = router(&[
            ("a", "/v1/tenants"),
            ("b", "/v1/projects/..."),
            ("c", "/..."),
        ]);
        let routes = r.routes();
        assert!(routes.contains(&("a".into(), "/v1/tenants".into())));
        assert!(routes.contains(&("b".into(), "/v1/projects (wildcard)".into())));
        assert!(routes.contains(&("c".into(), " (wildcard)".into())));
    }
}
