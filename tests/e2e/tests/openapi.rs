//! The OpenAPI document (`components/pipeline/openapi.json`, served at
//! GET /v1/openapi.json) and the route tables stay in step: every
//! `.route(Method::X, "/v1/...", ...)` (and the `/i/...` page) declared in `components/*/src` is described
//! under that method, and every described operation is declared.

use e2e::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `(METHOD, /v1/path/{param})` of every route the components' sources
/// declare: each names an endpoint of `pipeline::routes` (`.route(routes::NAME,
/// ...)`), resolved here by that file's declarations (`NAME = Method "path";`).
fn declared_routes() -> BTreeSet<(String, String)> {
    let listed = std::fs::read_to_string(workspace_root().join("components/pipeline/src/routes.rs")).unwrap();
    let endpoint = |name: &str| -> (String, String) {
        let line = listed
            .lines()
            .map(str::trim)
            .find(|line| line.starts_with(&format!("{name} = ")))
            .unwrap_or_else(|| panic!("routes::{name} is not declared in pipeline/src/routes.rs"));
        let (method, path) = line[name.len() + 3..].split_once(' ').unwrap();
        (method.to_ascii_uppercase(), path.trim_end_matches(';').trim_matches('"').to_string())
    };
    let mut files = Vec::new();
    for component in std::fs::read_dir(workspace_root().join("components")).unwrap().flatten() {
        // Only the Spin components (cdylib crates) declare routes; the library
        // crates' router unit tests do too, with made-up handlers.
        let manifest = std::fs::read_to_string(component.path().join("Cargo.toml")).unwrap_or_default();
        if !manifest.contains("\"cdylib\"") {
            continue;
        }
        let src = component.path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    let mut routes = BTreeSet::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        assert!(!source.contains("Endpoint::new"), "{}: a component names the routes of pipeline::routes, it declares none", file.display());
        let mut rest = source.as_str();
        while let Some(start) = rest.find(".route(routes::") {
            rest = &rest[start + ".route(routes::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_').collect();
            routes.insert(endpoint(&name));
        }
    }
    routes
}

fn document() -> Value {
    let text = std::fs::read_to_string(workspace_root().join("components/pipeline/openapi.json")).unwrap();
    serde_json::from_str(&text).expect("openapi.json is JSON")
}

const METHODS: [&str; 7] = ["get", "put", "post", "delete", "options", "head", "patch"];

fn described_operations(document: &Value) -> BTreeSet<(String, String)> {
    let mut operations = BTreeSet::new();
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, _) in item.as_object().unwrap() {
            if METHODS.contains(&method.as_str()) {
                operations.insert((method.to_ascii_uppercase(), path.clone()));
            }
        }
    }
    operations
}

#[test]
fn every_declared_route_is_described_and_vice_versa() {
    let declared = declared_routes();
    assert!(declared.contains(&("POST".to_string(), "/v1/projects".to_string())), "the scanner works: {declared:?}");
    assert!(declared.contains(&("GET".to_string(), "/v1/openapi.json".to_string())));
    let described = described_operations(&document());
    let undocumented: Vec<_> = declared.difference(&described).collect();
    assert!(undocumented.is_empty(), "routes missing from components/pipeline/openapi.json: {undocumented:?}");
    let phantom: Vec<_> = described.difference(&declared).collect();
    assert!(phantom.is_empty(), "openapi.json describes routes no component declares: {phantom:?}");
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => out.push(target.clone()),
                    _ => collect_refs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, out)),
        _ => {}
    }
}

#[test]
fn the_document_is_openapi_3_1_with_resolvable_refs_and_path_parameters() {
    let document = document();
    assert!(document["openapi"].as_str().unwrap().starts_with("3.1."));
    assert_eq!(document["info"]["version"], "1.0.0");
    let mut refs = Vec::new();
    collect_refs(&document, &mut refs);
    assert!(!refs.is_empty());
    for target in refs {
        let pointer = target.strip_prefix('#').unwrap_or_else(|| panic!("local refs only: {target}"));
        assert!(document.pointer(pointer).is_some(), "unresolved $ref {target}");
    }
    // Every `{param}` of a path is a declared path parameter of each of its operations.
    for (path, item) in document["paths"].as_object().unwrap() {
        let params: Vec<&str> =
            path.split('/').filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}'))).collect();
        for (method, operation) in item.as_object().unwrap() {
            let declared: Vec<&str> = operation["parameters"]
                .as_array()
                .map(|list| {
                    list.iter().filter(|p| p["in"] == "path").map(|p| p["name"].as_str().unwrap()).collect()
                })
                .unwrap_or_default();
            for param in &params {
                assert!(declared.contains(param), "{method} {path}: path parameter {param} not declared");
            }
            assert!(operation["responses"].as_object().is_some_and(|r| !r.is_empty()), "{method} {path}: responses");
        }
    }
}

#[test]
fn the_document_is_served_without_credentials() {
    let app = shared_app();
    let response = app.get("/v1/openapi.json").send().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let served: Value = response.json().unwrap();
    assert_eq!(served, document());
}

/// Every schema object in `value` (the value itself, and what its keywords hold), with its JSON pointer.
fn schemas_within<'a>(pointer: String, value: &'a Value, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(map) => {
            out.push((pointer.clone(), value));
            for (key, child) in map {
                schemas_within(format!("{pointer}/{key}"), child, out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                schemas_within(format!("{pointer}/{index}"), item, out);
            }
        }
        _ => {}
    }
}

/// The component schemas a request body uses, directly or through others.
fn request_schemas(document: &Value) -> BTreeSet<String> {
    let mut pending = Vec::new();
    for item in document["paths"].as_object().unwrap().values() {
        for operation in item.as_object().unwrap().values() {
            collect_refs(&operation["requestBody"], &mut pending);
        }
    }
    let mut seen = BTreeSet::new();
    while let Some(target) = pending.pop() {
        if seen.insert(target.clone()) {
            collect_refs(document.pointer(target.trim_start_matches('#')).unwrap(), &mut pending);
        }
    }
    seen
}

/// The rules of docs/CONVENTIONS.md ("A document generators can read") that a
/// generator's output shows only for the schemas the typed workflows use.
#[test]
fn the_document_follows_the_generator_rules() {
    let document = document();
    let mut all = Vec::new();
    schemas_within("#".to_string(), &document, &mut all);
    let mut broken = Vec::new();
    for (pointer, schema) in &all {
        let has = |key: &str| schema.get(key).is_some();
        if has("properties") && (has("anyOf") || has("oneOf")) {
            broken.push(format!("{pointer}: anyOf/oneOf next to properties (one schema per variant instead)"));
        }
        if has("enum") && schema["type"].is_array() {
            broken.push(format!("{pointer}: enum with a list of types (anyOf [the enum, null] instead)"));
        }
        if let Some(discriminator) = schema.get("discriminator") {
            let property = discriminator["propertyName"].as_str().unwrap();
            for member in schema["oneOf"].as_array().into_iter().flatten() {
                let target = member["$ref"].as_str().unwrap_or_else(|| panic!("{pointer}: oneOf members are $refs"));
                let resolved = document.pointer(target.trim_start_matches('#')).unwrap();
                let required = resolved["required"].as_array().into_iter().flatten().any(|name| name == property);
                if !required {
                    broken.push(format!("{pointer}: discriminator {property} not required in {target}"));
                }
            }
        }
    }
    for target in request_schemas(&document) {
        let mut within = Vec::new();
        schemas_within(target.clone(), document.pointer(target.trim_start_matches('#')).unwrap(), &mut within);
        for (pointer, schema) in within {
            for (name, property) in schema["properties"].as_object().into_iter().flatten() {
                if property.get("default").is_some() {
                    broken.push(format!(
                        "{pointer}/properties/{name}: a default on a request property (say it in the description)"
                    ));
                }
            }
        }
    }
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let body_types = operation["requestBody"]["content"].as_object().map_or(0, |content| content.len());
            if body_types > 1 {
                broken.push(format!(
                    "{method} {path}: a request body of {body_types} media types (one, others in its description)"
                ));
            }
            let mut contents = vec![&operation["requestBody"]["content"]];
            for response in operation["responses"].as_object().into_iter().flatten().map(|(_, r)| r) {
                contents.push(&response["content"]);
            }
            for (media_type, content) in contents.into_iter().filter_map(Value::as_object).flatten() {
                let binary = !(media_type.contains("json")
                    || media_type.starts_with("text/")
                    || media_type.starts_with("multipart/"));
                if binary && content["schema"]["format"] != "binary" {
                    broken.push(format!("{method} {path}: {media_type} without format binary"));
                }
            }
        }
    }
    assert!(
        broken.is_empty(),
        "the document breaks the generator rules of docs/CONVENTIONS.md:\n{}",
        broken.join("\n")
    );
}
