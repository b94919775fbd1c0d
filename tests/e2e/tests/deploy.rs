//! The deployment examples under deploy/: Spin runtime configs and SpinKube
//! manifests. Nothing here runs a cluster; the test checks what would only show
//! as a broken deploy: that every runtime config parses with the host's own
//! parser (which follows Spin's), and that the names which must agree across
//! the SpinKube files, spin.toml and the README do agree. The libSQL example,
//! rendered as docs/deploy.md says, serves the app on a real sqld under the
//! selected runtime (skipped, saying so, without sqld).

use e2e::services::Sqld;
use e2e::{json_of, workspace_root, TestApp};
use serde::Deserialize as _;
use serde_norway::Value;
use spin_host::manifest::{Manifest, RouteConfig};
use spin_host::routes::Router;
use spin_host::runtime_config::{KeyValueStoreConfig, RuntimeConfig, SqliteBackend, SqliteDatabaseConfig};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn deploy_dir() -> PathBuf {
    workspace_root().join("deploy")
}

/// Files under `dir` (recursively) whose name ends with `suffix`, sorted.
fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files(&path, suffix));
        } else if path.to_string_lossy().ends_with(suffix) {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Every YAML document of deploy/spinkube, with the file it came from.
fn manifests() -> Vec<(PathBuf, Value)> {
    let mut docs = Vec::new();
    let mut yaml = files(&deploy_dir().join("spinkube"), ".yaml");
    yaml.extend(files(&deploy_dir().join("spinkube"), ".yml"));
    assert!(!yaml.is_empty(), "no YAML under deploy/spinkube");
    for path in yaml {
        let text = std::fs::read_to_string(&path).unwrap();
        for document in serde_norway::Deserializer::from_str(&text) {
            let value = Value::deserialize(document).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            if !value.is_null() {
                docs.push((path.clone(), value));
            }
        }
    }
    docs
}

fn kind<'a>(docs: &'a [(PathBuf, Value)], kind: &str) -> Vec<&'a Value> {
    docs.iter().filter(|(_, d)| d["kind"] == kind).map(|(_, d)| d).collect()
}

fn str_at<'a>(value: &'a Value, what: &str) -> &'a str {
    value.as_str().unwrap_or_else(|| panic!("{what} must be a string, got {value:?}"))
}

fn name(doc: &Value) -> &str {
    str_at(&doc["metadata"]["name"], "metadata.name")
}

/// `(secret name, key)` of a `valueFrom.secretKeyRef`, if it is one.
fn secret_ref(value_from: &Value) -> Option<(String, String)> {
    let r = &value_from["secretKeyRef"];
    r.is_mapping().then(|| (str_at(&r["name"], "secretKeyRef.name").to_string(), str_at(&r["key"], "secretKeyRef.key").to_string()))
}

/// The keys of a Secret (`data` and `stringData`) with their text.
fn secret_entries(secret: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for field in ["stringData", "data"] {
        if let Some(map) = secret[field].as_mapping() {
            for (k, v) in map {
                let text = str_at(v, "a Secret value");
                let text = if field == "data" {
                    use base64::Engine as _;
                    String::from_utf8(base64::engine::general_purpose::STANDARD.decode(text).unwrap()).unwrap()
                } else {
                    text.to_string()
                };
                out.insert(str_at(k, "a Secret key").to_string(), text);
            }
        }
    }
    out
}

fn spin_toml() -> Manifest {
    Manifest::load(&workspace_root().join("spin.toml")).unwrap()
}

/// A placeholder, never a credential: `<...>` or `${...}` (or made of them).
fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    (v.starts_with('<') && v.ends_with('>')) || (v.starts_with("${") && v.ends_with('}'))
}

/// The password of a `redis://user:password@host` URL, if any.
fn redis_password(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let userinfo = rest.split_once('@')?.0;
    userinfo.split_once(':').map(|(_, p)| p.to_string()).filter(|p| !p.is_empty())
}

/// Credentials inside a runtime config are placeholders.
fn assert_no_credentials(config: &RuntimeConfig, what: &str) {
    for (label, db) in &config.sqlite_databases {
        if let SqliteDatabaseConfig::Libsql { token, .. } = db {
            assert!(is_placeholder(token), "{what}: sqlite_database.{label} has a real-looking token {token:?}");
        }
    }
    for (label, store) in &config.key_value_stores {
        if let KeyValueStoreConfig::Redis { url } = store {
            if let Some(password) = redis_password(url) {
                assert!(is_placeholder(&password), "{what}: key_value_store.{label} has a real-looking password");
            }
        }
    }
}

/// `envsubst` of the `${NAME}` placeholders a deploy file asks to render.
fn render(text: &str, values: &[(&str, &str)]) -> String {
    values.iter().fold(text.to_string(), |text, (name, value)| text.replace(&format!("${{{name}}}"), value))
}

/// The placeholders of the libSQL example: the server's URL and its token.
const LIBSQL_PLACEHOLDERS: [&str; 2] = ["LIBSQL_URL", "LIBSQL_AUTH_TOKEN"];

/// A runtime config file, read as the parser sees it once rendered: a URL
/// placeholder (which Spin checks for http(s)://) stands for a Turso URL, the
/// others stay placeholders.
fn load_rendered(path: &Path) -> RuntimeConfig {
    let text = std::fs::read_to_string(path).unwrap();
    let text = render(&text, &[("LIBSQL_URL", "https://db-org.turso.io")]);
    RuntimeConfig::parse(&text, Some(path)).unwrap_or_else(|e| panic!("{}: {e:#}", path.display()))
}

#[test]
fn every_runtime_config_parses_with_the_hosts_parser() {
    // Runtime configs; the edge's manifest (deploy/akamai/spin.toml) is checked below.
    let tomls: Vec<PathBuf> = files(&deploy_dir(), ".toml").into_iter().filter(|p| !p.ends_with("spin.toml")).collect();
    let names: Vec<String> = tomls.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for expected in ["runtime-config.redis.toml", "runtime-config.libsql.toml", "runtime-config.local.toml"] {
        assert!(names.iter().any(|n| n == expected), "deploy/{expected} is missing: {names:?}");
    }
    let mut configs = BTreeMap::new();
    for path in &tomls {
        let config = load_rendered(path);
        assert!(config.summary().is_some(), "{} configures no store", path.display());
        assert_no_credentials(&config, &path.display().to_string());
        configs.insert(path.file_name().unwrap().to_string_lossy().into_owned(), config);
    }

    // What each example is for.
    let redis = &configs["runtime-config.redis.toml"];
    assert!(matches!(&redis.key_value_stores["default"], KeyValueStoreConfig::Redis { url } if url.starts_with("redis://")));
    redis.ensure_supported().expect("the test host runs the Redis example");

    let local = &configs["runtime-config.local.toml"];
    local.ensure_supported().expect("the test host runs the local example");
    let state = Path::new("/unused-state-dir");
    let kv = local.key_value_backends(state).unwrap();
    let db = local.sqlite_backends(state).unwrap();
    let kv_path = match &kv["default"] {
        spin_host::runtime_config::KeyValueBackend::Sqlite(Some(p)) => p.clone(),
        other => panic!("the local example's key-value store is a file: {other:?}"),
    };
    let db_path = match &db["default"] {
        SqliteBackend::Local(location) => location.path.clone().expect("the local example's database is a file"),
        other => panic!("the local example's database is local: {other:?}"),
    };
    assert!(!kv_path.starts_with(state) && !db_path.starts_with(state), "explicit paths, not the state dir");
    assert_eq!(kv_path.parent(), db_path.parent(), "both files in one data directory");

    let libsql = &configs["runtime-config.libsql.toml"];
    assert!(matches!(&libsql.sqlite_databases["default"], SqliteDatabaseConfig::Libsql { .. }));
    libsql.ensure_supported().expect("the test host runs the libSQL example");
    let raw = std::fs::read_to_string(deploy_dir().join("runtime-config.libsql.toml")).unwrap();
    for placeholder in LIBSQL_PLACEHOLDERS {
        assert!(raw.contains(&format!("${{{placeholder}}}")), "the libSQL example takes ${{{placeholder}}}");
    }
    assert!(raw.contains("SPIN_VARIABLE_DATABASE_BACKEND=libsql"), "the libSQL example says to set database_backend");
}

/// The libSQL example rendered as its comment says (`envsubst` with a
/// self-hosted sqld's URL) and `database_backend=libsql`: the app serves
/// from sqld, and what it writes is there, not in a local file.
#[test]
fn the_libsql_example_serves_the_app_from_sqld() {
    e2e::on_spin_sqlite("its subject is the runtime config's libSQL database");
    let Some(sqld) = Sqld::start_or_skip("the_libsql_example_serves_the_app_from_sqld") else { return };
    let config_dir = tempfile::tempdir().unwrap();
    let rendered = config_dir.path().join("runtime-config.toml");
    let example = std::fs::read_to_string(deploy_dir().join("runtime-config.libsql.toml")).unwrap();
    std::fs::write(&rendered, render(&example, &[("LIBSQL_URL", &sqld.url()), ("LIBSQL_AUTH_TOKEN", "unused")])).unwrap();
    let state = tempfile::tempdir().unwrap();
    let app = TestApp::start_configured(state.path(), &[("database_backend", "libsql")], |config| {
        config.runtime_config_file = Some(rendered)
    });
    let tenant = app.create_tenant();
    let (status, listed) = json_of(
        app.get("/v1/projects").header("X-Api-Key", &tenant.api_key).header("X-Tenant-Id", &tenant.tenant_id).send().unwrap(),
    );
    assert_eq!((status.as_u16(), listed), (200, serde_json::json!({"data": []})));
    let stored = sqld.query(&format!("SELECT tenant_id FROM tenants WHERE tenant_id = '{}'", tenant.tenant_id));
    assert_eq!(stored.len(), 1, "the tenant is in sqld");
    assert!(!state.path().join("sqlite_db.db").exists(), "no local database was made");
}

#[test]
fn spinkube_manifests_agree_with_each_other_and_with_spin_toml() {
    let docs = manifests();
    let spin = spin_toml();

    let apps = kind(&docs, "SpinApp");
    assert_eq!(apps.len(), 1, "one SpinApp");
    let app = apps[0];
    assert_eq!(app["apiVersion"], "core.spinkube.dev/v1alpha1");
    let app_name = name(app);
    let spec = &app["spec"];
    assert!(spec["replicas"].as_u64().is_some_and(|r| r >= 1), "replicas");
    let secrets: BTreeMap<&str, BTreeMap<String, String>> =
        kind(&docs, "Secret").into_iter().map(|s| (name(s), secret_entries(s))).collect();

    // Every Secret key the SpinApp and the CronJobs read exists.
    let check_ref = |(secret, key): &(String, String), who: &str| {
        let entries = secrets.get(secret.as_str()).unwrap_or_else(|| panic!("{who} reads Secret {secret:?}, which is not defined"));
        assert!(entries.contains_key(key), "{who} reads key {key:?} of Secret {secret:?}, which it does not have");
    };

    // The runtime config Secret: the key the operator mounts, a config the host parses,
    // and stores shared by every replica (nothing local to a pod).
    let runtime_secret = str_at(&spec["runtimeConfig"]["loadFromSecret"], "runtimeConfig.loadFromSecret");
    check_ref(&(runtime_secret.to_string(), "runtime-config.toml".to_string()), "SpinApp runtimeConfig.loadFromSecret");
    let runtime = RuntimeConfig::parse(&secrets[runtime_secret]["runtime-config.toml"], None)
        .unwrap_or_else(|e| panic!("the runtime config in Secret {runtime_secret}: {e:#}"));
    assert_no_credentials(&runtime, runtime_secret);
    assert!(matches!(runtime.sqlite_databases.get("default"), Some(SqliteDatabaseConfig::Libsql { .. })), "records on libSQL");
    assert!(matches!(runtime.key_value_stores.get("default"), Some(KeyValueStoreConfig::Redis { .. })), "blobs on Redis");
    assert_eq!(app_name, "interview-research-service");
    assert_eq!(runtime_secret, format!("{app_name}-runtime-config"), "the name `spin kube scaffold` gives it");

    // Application variables: declared in spin.toml; secret ones from existing Secret keys.
    let mut variable_refs = BTreeMap::new();
    for variable in spec["variables"].as_sequence().expect("spec.variables") {
        let var = str_at(&variable["name"], "variables[].name");
        assert!(spin.variables.contains_key(var), "SpinApp variable {var:?} is not declared in spin.toml [variables]");
        if let Some(reference) = secret_ref(&variable["valueFrom"]) {
            check_ref(&reference, &format!("SpinApp variable {var}"));
            variable_refs.insert(var.to_string(), reference);
        } else {
            assert!(variable["value"].is_string(), "variable {var} has a value or a Secret reference");
            assert!(!spin.variables[var].secret, "secret variable {var} must come from a Secret, not a plain value");
        }
    }
    for var in ["partner_api_key", "partner_tenant_id", "maintenance_token"] {
        assert!(variable_refs.contains_key(var), "{var} comes from a Secret");
    }
    // Records on libSQL: the app must know, or it sends pragmas sqld refuses.
    let backend = spec["variables"].as_sequence().unwrap().iter().find(|v| v["name"] == "database_backend");
    assert_eq!(backend.map(|v| str_at(&v["value"], "database_backend's value")), Some("libsql"), "the SpinApp sets database_backend");

    // Components: every HTTP component, no cron component (the shim runs no cron trigger).
    let http: BTreeSet<&str> = spin.trigger.http.iter().map(|t| t.component.as_str()).collect();
    let cron: BTreeSet<&str> = spin.trigger.cron.iter().map(|t| t.component.as_str()).collect();
    let listed: BTreeSet<&str> =
        spec["components"].as_sequence().expect("spec.components").iter().map(|c| str_at(c, "components[]")).collect();
    assert_eq!(listed, http.difference(&cron).copied().collect::<BTreeSet<_>>(), "spec.components: every HTTP component but the cron ones");
    assert_eq!(http.intersection(&cron).count(), 0, "a component with both triggers could not run under the shim");

    // The image: one reference, tagged with the app's version, the same in the README.
    let image = str_at(&spec["image"], "spec.image");
    let version = spin.application.version.clone().expect("spin.toml [application] version");
    assert!(image.ends_with(&format!("/interview-research-service:{version}")), "{image} is tagged {version}");
    let readme = std::fs::read_to_string(deploy_dir().join("spinkube/README.md")).unwrap();
    let mentioned: BTreeSet<&str> = readme
        .split(|c: char| c.is_whitespace() || c == '`')
        .filter(|word| word.contains("/interview-research-service:"))
        .collect();
    assert_eq!(mentioned, BTreeSet::from([image]), "the README pushes and scaffolds the SpinApp's image");
    assert!(readme.contains(&format!("spin registry push {image}")), "README: spin registry push");
    assert!(readme.contains(&format!("--from {image}")), "README: spin kube scaffold --from");
    for doc in docs.iter().map(|(_, d)| d) {
        for container in containers(doc) {
            let other = str_at(&container["image"], "image");
            assert!(!other.contains("interview-research-service"), "only the SpinApp names the app's image, not {other}");
        }
    }

    // The maintenance CronJob: POST to the SpinApp's Service, the route of the
    // operator component, with the token the app has as `maintenance_token`.
    let jobs = kind(&docs, "CronJob");
    assert_eq!(jobs.len(), 1, "one CronJob");
    let job = jobs[0];
    assert_eq!(job["spec"]["schedule"], "* * * * *", "every minute");
    let containers: Vec<&Value> = containers(job);
    assert_eq!(containers.len(), 1);
    let container = containers[0];
    let args: Vec<&str> = container["args"].as_sequence().expect("args").iter().map(|a| str_at(a, "args[]")).collect();
    let url = *args.iter().find(|a| a.starts_with("http://")).expect("a URL among the args");
    let (authority, path) = url["http://".len()..].split_once('/').unwrap();
    let path = format!("/{path}");
    let host = authority.strip_suffix(":80").unwrap_or(authority);
    assert!(
        host == app_name || host.starts_with(&format!("{app_name}.")),
        "the CronJob calls the SpinApp's Service {app_name}, not {host}"
    );
    assert_eq!(path, "/v1/maintenance/run");
    assert!(args.windows(2).any(|w| matches!(w, ["--request" | "-X", "POST"])), "POST: {args:?}");
    assert!(args.contains(&"Authorization: Bearer $(MAINTENANCE_TOKEN)"), "{args:?}");
    let env = container["env"].as_sequence().expect("env");
    let token_ref = env
        .iter()
        .find(|e| e["name"] == "MAINTENANCE_TOKEN")
        .and_then(|e| secret_ref(&e["valueFrom"]))
        .expect("MAINTENANCE_TOKEN from a Secret");
    check_ref(&token_ref, "CronJob MAINTENANCE_TOKEN");
    assert_eq!(Some(&token_ref), variable_refs.get("maintenance_token"), "the CronJob sends what the app expects");

    // The route exists in spin.toml and its component runs under the shim.
    let routes: Vec<(&str, &str)> = spin
        .trigger
        .http
        .iter()
        .filter_map(|t| match &t.route {
            RouteConfig::Route(r) => Some((t.component.as_str(), r.as_str())),
            RouteConfig::Private { .. } => None,
        })
        .collect();
    let matched = Router::build(routes).unwrap().route(&path).expect("spin.toml routes the maintenance path");
    assert!(matched.component != "fallback", "{path} reaches a real route, not the catch-all");
    assert!(listed.contains(matched.component.as_str()), "{} serves {path} and must be in spec.components", matched.component);
    let operator = &spin.component[&matched.component];
    assert!(operator.variables.contains_key("maintenance_token"), "{} reads maintenance_token", matched.component);

    // No credential in the repository: every Secret value is a placeholder.
    for (secret, entries) in &secrets {
        for (key, value) in entries {
            if key.ends_with(".toml") {
                continue; // checked above, field by field
            }
            assert!(is_placeholder(value), "Secret {secret} key {key} must be a <placeholder>, not a value");
        }
    }

    // kustomization.yaml applies every other manifest of the directory.
    let kustomizations = kind(&docs, "Kustomization");
    assert_eq!(kustomizations.len(), 1);
    let resources: BTreeSet<&str> =
        kustomizations[0]["resources"].as_sequence().unwrap().iter().map(|r| str_at(r, "resources[]")).collect();
    let others: BTreeSet<String> = docs
        .iter()
        .filter(|(_, d)| d["kind"] != "Kustomization")
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(resources, others.iter().map(String::as_str).collect::<BTreeSet<_>>());
}

/// The containers of a CronJob (or any pod template below `spec`).
fn containers(doc: &Value) -> Vec<&Value> {
    let template = &doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"];
    let direct = &doc["spec"]["template"]["spec"]["containers"];
    [template, direct].into_iter().filter_map(Value::as_sequence).flatten().collect()
}

/// The edge's manifest (deploy/akamai/spin.toml) is spin.toml for a platform
/// without SQLite: the same components, routes, builds and variables, with the
/// records over HTTP instead of `sqlite_databases`, the `default` key-value
/// store only, no cron trigger (the platform's scheduler calls the tick
/// route), the database's host allowed to every component, and defaults that
/// fit the platform's limits.
#[test]
fn the_edge_manifest_is_spin_toml_without_sqlite() {
    use spin_host::manifest::Source;
    let main = spin_toml();
    let edge = Manifest::load(&deploy_dir().join("akamai/spin.toml")).unwrap();
    assert!(edge.trigger.cron.is_empty(), "no cron trigger on the edge");
    let routes = |m: &Manifest| -> Vec<(String, String)> {
        m.trigger.http.iter().map(|t| (format!("{:?}", t.route), t.component.clone())).collect()
    };
    assert_eq!(routes(&edge), routes(&main), "the same routes, to the same components");
    let cron_only: Vec<&String> = main.trigger.cron.iter().map(|t| &t.component).collect();
    let expected: BTreeSet<&String> = main.component.keys().filter(|id| !cron_only.contains(id)).collect();
    assert_eq!(edge.component.keys().collect::<BTreeSet<_>>(), expected, "every HTTP component, and only those");

    // The app's variables: spin.toml's, with the records' URL and token for database_backend.
    let mut want: BTreeSet<&str> = main.variables.keys().map(String::as_str).filter(|name| *name != "database_backend").collect();
    want.extend(["database_url", "database_token"]);
    assert_eq!(edge.variables.keys().map(String::as_str).collect::<BTreeSet<_>>(), want);
    assert!(edge.variables["database_url"].required, "no database, no app: the URL has no default");
    assert!(edge.variables["database_token"].secret, "the token is a secret");
    let default = |name: &str| edge.variables[name].default.clone().unwrap_or_default().parse::<u64>().unwrap();
    assert!(default("file_max_bytes") + 64 * 1024 <= 10 * 1024 * 1024, "uploads fit 10 MiB request bodies");
    assert!(default("blob_chunk_bytes") + 64 <= 1_000_000, "a sealed chunk fits a 1 MB key-value value");
    assert!(default("webhook_timeout_seconds") <= 15, "a maintenance run ends within 30 s per request");
    assert!(default("maintenance_tick_seconds") >= 1, "the tick route is on");

    for (id, component) in &edge.component {
        let theirs = &main.component[id];
        assert!(component.sqlite_databases.is_empty(), "{id}: no SQLite on the edge");
        assert!(component.key_value_stores.iter().all(|store| store == "default"), "{id}: the default store only");
        assert_eq!(component.key_value_stores, theirs.key_value_stores, "{id}");
        assert_eq!(component.ai_models, theirs.ai_models, "{id}: the same models for llm_provider=spin");
        let mut hosts = theirs.allowed_outbound_hosts.clone();
        hosts.push("{{ database_url }}".into());
        assert_eq!(component.allowed_outbound_hosts, hosts, "{id}: today's hosts and the database's");
        let mut variables = theirs.variables.clone();
        variables.remove("database_backend");
        variables.insert("database_url".into(), "{{ database_url }}".into());
        variables.insert("database_token".into(), "{{ database_token }}".into());
        assert_eq!(component.variables, variables, "{id}: the same variables, the records' instead of database_backend");
        match (&component.source, &theirs.source) {
            (Source::Path(edge_path), Source::Path(path)) => {
                assert_eq!(edge_path, &format!("../../{path}"), "{id}: the same build output")
            }
            other => panic!("{id}: sources {other:?}"),
        }
    }
}
