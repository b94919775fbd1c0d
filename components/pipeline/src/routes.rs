//! Every public route of the service, so that a 404 can say which route a
//! mistyped path most likely meant. Each component routes only its own paths;
//! this list spans them all (a unit test keeps it equal to the OpenAPI document).

use platform::error::ApiError;
use platform::http::Method;

/// Method and path template (`{name}` for a parameter) of every route.
pub const PUBLIC_ROUTES: &[(Method, &str)] = &[
    (Method::Get, "/v1/openapi.json"),
    (Method::Post, "/v1/tenants"),
    (Method::Get, "/v1/projects"),
    (Method::Post, "/v1/projects"),
    (Method::Get, "/v1/projects/{project_id}"),
    (Method::Patch, "/v1/projects/{project_id}"),
    (Method::Post, "/v1/projects/{project_id}/activate"),
    (Method::Post, "/v1/projects/{project_id}/deactivate"),
    (Method::Post, "/v1/projects/{project_id}/complete"),
    (Method::Get, "/v1/projects/{project_id}/url"),
    (Method::Get, "/v1/projects/{project_id}/interviews-export"),
    (Method::Get, "/v1/projects/{project_id}/interviewees-export"),
    (Method::Get, "/v1/projects/{project_id}/survey-results"),
    (Method::Get, "/v1/projects/{project_id}/synthesis"),
    (Method::Get, "/v1/projects/{project_id}/synthesis-report"),
    (Method::Post, "/v1/project/validate-context"),
    (Method::Post, "/v1/sandbox-links/rotate"),
    (Method::Get, "/v1/interviews"),
    (Method::Delete, "/v1/interviews/{interview_id}"),
    (Method::Post, "/v1/interviews/{interview_id}/flag"),
    (Method::Get, "/v1/interviews/{interview_id}/audio-export"),
    (Method::Get, "/v1/interviews/{interview_id}/video-export"),
    (Method::Post, "/v1/interviewees/erase"),
    (Method::Post, "/v1/files"),
    (Method::Get, "/v1/files/{file_id}"),
    (Method::Get, "/v1/webhooks/event-types"),
    (Method::Post, "/v1/webhooks/secrets"),
    (Method::Get, "/v1/webhooks/subscriptions"),
    (Method::Post, "/v1/webhooks/subscriptions"),
    (Method::Get, "/v1/webhooks/subscriptions/{subscription_id}"),
    (Method::Post, "/v1/webhooks/subscriptions/{subscription_id}"),
    (Method::Delete, "/v1/webhooks/subscriptions/{subscription_id}"),
    (Method::Get, "/v1/webhooks/deliveries"),
    (Method::Get, "/v1/webhooks/deliveries/{delivery_id}"),
    (Method::Post, "/v1/webhooks/deliveries/{delivery_id}/redeliver"),
    (Method::Get, "/i/{project_id}"),
    (Method::Get, "/i/{project_id}/media/{file_id}"),
    (Method::Get, "/i/assets/{file}"),
    (Method::Post, "/v1/sessions"),
    (Method::Get, "/v1/sessions/{interview_id}"),
    (Method::Post, "/v1/sessions/{interview_id}/answers"),
    (Method::Post, "/v1/sessions/{interview_id}/finish"),
    (Method::Put, "/v1/sessions/{interview_id}/recordings/audio/{index}"),
    (Method::Put, "/v1/sessions/{interview_id}/recordings/video/{index}"),
    (Method::Post, "/v1/sessions/{interview_id}/transcriptions"),
    (Method::Post, "/v1/maintenance/run"),
    (Method::Get, "/v1/maintenance/tick"),
];

/// The 404 of a path no route matches, naming the closest route when one is
/// near enough to be a typo.
pub fn not_found(method: Method, path: &str) -> ApiError {
    match closest(method, path) {
        Some(suggestion) => ApiError::NotFound(format!(
            "No route for {} {path}; did you mean {} {suggestion}?",
            method.as_str(),
            method.as_str()
        )),
        None => ApiError::NotFound(format!("No route for {path}")),
    }
}

/// The path of the route with `method` that `path` most likely meant: the same
/// number of segments, each literal segment at most a couple of edits away
/// (parameters match anything), the fewest edits in all. Parameters keep the
/// values the path gave them. None when the path matches a route exactly (a
/// wrong method is a 405, not a typo) or nothing is close.
pub fn closest(method: Method, path: &str) -> Option<String> {
    closest_route(method, &segments(path)).map(|(_, suggestion)| suggestion)
}

/// The route of `method` that `path` is a typo of, when that beats the 405 the
/// path gets for matching routes of other methods: only when the typo's route
/// is more specific (more literal segments) than every route the path matches
/// as given. `POST /v1/projects/validate-context` matches
/// `/v1/projects/{project_id}` only through its parameter: it meant
/// `POST /v1/project/validate-context`. `PATCH /v1/project/validate-context`
/// names a route exactly: a wrong method (405), not a typo of
/// `PATCH /v1/projects/{project_id}`.
pub fn closest_over_405(method: Method, path: &str) -> Option<String> {
    let given = segments(path);
    let matched = PUBLIC_ROUTES
        .iter()
        .filter(|(_, template)| distance(template, &given) == Some(0))
        .map(|(_, template)| literal_segments(template))
        .max()
        .unwrap_or(0);
    closest_route(method, &given)
        .filter(|(template, _)| literal_segments(template) > matched)
        .map(|(_, suggestion)| suggestion)
}

fn segments(path: &str) -> Vec<&str> {
    path.trim_end_matches('/').split('/').collect()
}

fn literal_segments(template: &str) -> usize {
    template.split('/').filter(|segment| !segment.starts_with('{')).count()
}

/// The closest route of `method` (its template) and the path it suggests.
fn closest_route(method: Method, given: &[&str]) -> Option<(&'static str, String)> {
    let mut best: Option<(usize, &'static str)> = None;
    for (route_method, template) in PUBLIC_ROUTES {
        if *route_method != method {
            continue;
        }
        let Some(edits) = distance(template, given) else { continue };
        if edits > 0 && edits <= 3 && best.as_ref().is_none_or(|(fewest, _)| edits < *fewest) {
            best = Some((edits, template));
        }
    }
    best.map(|(_, template)| (template, fill(template, given)))
}

/// Edits from the given segments to the template's, or None when a segment is
/// too far off to be a typo.
fn distance(template: &str, given: &[&str]) -> Option<usize> {
    let expected: Vec<&str> = template.split('/').collect();
    if expected.len() != given.len() {
        return None;
    }
    let mut total = 0;
    for (expected, given) in expected.iter().zip(given) {
        if expected.starts_with('{') {
            if given.is_empty() {
                return None;
            }
            continue;
        }
        let edits = edit_distance(expected, given);
        if edits > (expected.len() / 3).max(1) {
            return None;
        }
        total += edits;
    }
    Some(total)
}

/// The template with its parameters replaced by the given segments.
fn fill(template: &str, given: &[&str]) -> String {
    template
        .split('/')
        .zip(given)
        .map(|(expected, given)| if expected.starts_with('{') { *given } else { expected })
        .collect::<Vec<_>>()
        .join("/")
}

/// Levenshtein distance (insertions, deletions, substitutions) of two short texts.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn the_list_is_the_openapi_document() {
        let document: serde_json::Value = serde_json::from_str(crate::OPENAPI_JSON).unwrap();
        let documented: BTreeSet<(String, String)> = document["paths"]
            .as_object()
            .unwrap()
            .iter()
            .flat_map(|(path, operations)| {
                operations
                    .as_object()
                    .unwrap()
                    .keys()
                    .filter(|method| ["get", "post", "put", "patch", "delete"].contains(&method.as_str()))
                    .map(move |method| (method.to_ascii_uppercase(), path.clone()))
            })
            .collect();
        let listed: BTreeSet<(String, String)> =
            PUBLIC_ROUTES.iter().map(|(method, path)| (method.as_str().to_string(), path.to_string())).collect();
        assert_eq!(listed, documented);
    }

    #[test]
    fn typos_get_the_route_they_meant() {
        assert_eq!(closest(Method::Get, "/v1/projetcs").as_deref(), Some("/v1/projects"));
        assert_eq!(closest(Method::Get, "/v1/Projects/").as_deref(), Some("/v1/projects"));
        assert_eq!(
            closest(Method::Post, "/v1/projects/validate-context").as_deref(),
            Some("/v1/project/validate-context")
        );
        assert_eq!(closest(Method::Get, "/v1/projects/42/urls").as_deref(), Some("/v1/projects/42/url"));
        assert_eq!(closest(Method::Get, "/v1/interview").as_deref(), Some("/v1/interviews"));
        assert_eq!(closest(Method::Post, "/v1/webhook/secret").as_deref(), Some("/v1/webhooks/secrets"));
    }

    #[test]
    fn far_paths_and_exact_routes_get_no_suggestion() {
        assert_eq!(closest(Method::Get, "/v1/everything"), None);
        assert_eq!(closest(Method::Get, "/v1/projects"), None, "a route, not a typo");
        assert_eq!(closest(Method::Delete, "/v1/projects/42"), None, "no DELETE route is near");
        assert_eq!(closest(Method::Post, "/v1/projects/42"), None, "a project id is not a typo of validate-context");
        assert_eq!(closest(Method::Get, "/"), None);
    }

    #[test]
    fn a_typo_beats_a_405_only_when_it_names_a_more_specific_route() {
        assert_eq!(
            closest_over_405(Method::Post, "/v1/projects/validate-context").as_deref(),
            Some("/v1/project/validate-context"),
            "validate-context is no project id"
        );
        assert_eq!(closest_over_405(Method::Patch, "/v1/project/validate-context"), None, "a route of another method");
        assert_eq!(closest_over_405(Method::Delete, "/v1/projects"), None);
        assert_eq!(closest(Method::Patch, "/v1/project/validate-context").as_deref(), Some("/v1/projects/validate-context"));
    }

    #[test]
    fn the_404_says_what_was_meant() {
        let body = not_found(Method::Get, "/v1/projetcs").body();
        assert_eq!(body["detail"]["error"], "not_found");
        assert_eq!(body["detail"]["message"], "No route for GET /v1/projetcs; did you mean GET /v1/projects?");
        assert_eq!(not_found(Method::Get, "/nothing").body()["detail"]["message"], "No route for /nothing");
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("projects", "projetcs"), 2);
        assert_eq!(edit_distance("project", "projects"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
