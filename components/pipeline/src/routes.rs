//! Every public route of the service, declared once: each component routes
//! its own of them, a 404 says which of them a mistyped path most likely
//! meant, and a unit test keeps them equal to the OpenAPI document.

use platform::error::ApiError;
use platform::http::{Endpoint, Method};

/// Every route of the service, declared once: each component's route table
/// names these, the 404 names the closest of them, and a unit test keeps
/// them equal to the OpenAPI document (`{name}` for a path parameter).
macro_rules! endpoints {
    ($($(#[$meta:meta])* $name:ident = $method:ident $path:literal;)+) => {
        $($(#[$meta])* pub const $name: Endpoint = Endpoint::new(Method::$method, $path);)+
        /// Every route, in the order the OpenAPI document lists them.
        pub const PUBLIC_ROUTES: &[Endpoint] = &[$($name),+];
    };
}

endpoints! {
    OPENAPI_DOCUMENT = Get "/v1/openapi.json";
    CREATE_TENANT = Post "/v1/tenants";
    LIST_PROJECTS = Get "/v1/projects";
    CREATE_PROJECT = Post "/v1/projects";
    GET_PROJECT = Get "/v1/projects/{project_id}";
    PATCH_PROJECT = Patch "/v1/projects/{project_id}";
    ACTIVATE_PROJECT = Post "/v1/projects/{project_id}/activate";
    DEACTIVATE_PROJECT = Post "/v1/projects/{project_id}/deactivate";
    COMPLETE_PROJECT = Post "/v1/projects/{project_id}/complete";
    PROJECT_URL = Get "/v1/projects/{project_id}/url";
    INTERVIEWS_EXPORT = Get "/v1/projects/{project_id}/interviews-export";
    INTERVIEWEES_EXPORT = Get "/v1/projects/{project_id}/interviewees-export";
    SURVEY_RESULTS = Get "/v1/projects/{project_id}/survey-results";
    SYNTHESIS = Get "/v1/projects/{project_id}/synthesis";
    SYNTHESIS_REPORT = Get "/v1/projects/{project_id}/synthesis-report";
    VALIDATE_CONTEXT = Post "/v1/project/validate-context";
    ROTATE_SANDBOX_LINKS = Post "/v1/sandbox-links/rotate";
    LIST_INTERVIEWS = Get "/v1/interviews";
    ERASE_INTERVIEW = Delete "/v1/interviews/{interview_id}";
    FLAG_INTERVIEW = Post "/v1/interviews/{interview_id}/flag";
    AUDIO_EXPORT = Get "/v1/interviews/{interview_id}/audio-export";
    VIDEO_EXPORT = Get "/v1/interviews/{interview_id}/video-export";
    ERASE_INTERVIEWEE = Post "/v1/interviewees/erase";
    UPLOAD_FILE = Post "/v1/files";
    DOWNLOAD_FILE = Get "/v1/files/{file_id}";
    EVENT_TYPES = Get "/v1/webhooks/event-types";
    CREATE_WEBHOOK_SECRET = Post "/v1/webhooks/secrets";
    LIST_SUBSCRIPTIONS = Get "/v1/webhooks/subscriptions";
    CREATE_SUBSCRIPTION = Post "/v1/webhooks/subscriptions";
    GET_SUBSCRIPTION = Get "/v1/webhooks/subscriptions/{subscription_id}";
    CONFIRM_SUBSCRIPTION = Post "/v1/webhooks/subscriptions/{subscription_id}";
    DELETE_SUBSCRIPTION = Delete "/v1/webhooks/subscriptions/{subscription_id}";
    LIST_DELIVERIES = Get "/v1/webhooks/deliveries";
    GET_DELIVERY = Get "/v1/webhooks/deliveries/{delivery_id}";
    REDELIVER = Post "/v1/webhooks/deliveries/{delivery_id}/redeliver";
    INTERVIEW_PAGE = Get "/i/{project_id}";
    SURVEY_MEDIA = Get "/i/{project_id}/media/{file_id}";
    PAGE_ASSET = Get "/i/assets/{file}";
    START_SESSION = Post "/v1/sessions";
    GET_SESSION = Get "/v1/sessions/{interview_id}";
    ANSWER = Post "/v1/sessions/{interview_id}/answers";
    FINISH_SESSION = Post "/v1/sessions/{interview_id}/finish";
    AUDIO_CHUNK = Put "/v1/sessions/{interview_id}/recordings/audio/{index}";
    VIDEO_CHUNK = Put "/v1/sessions/{interview_id}/recordings/video/{index}";
    TRANSCRIBE = Post "/v1/sessions/{interview_id}/transcriptions";
    RUN_MAINTENANCE = Post "/v1/maintenance/run";
    MAINTENANCE_TICK = Get "/v1/maintenance/tick";
}

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
        .filter(|route| distance(route.path, &given) == Some(0))
        .map(|route| literal_segments(route.path))
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
    for &Endpoint { method: route_method, path: template } in PUBLIC_ROUTES {
        if route_method != method {
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
            PUBLIC_ROUTES.iter().map(|route| (route.method.as_str().to_string(), route.path.to_string())).collect();
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
