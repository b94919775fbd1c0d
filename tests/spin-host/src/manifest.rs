//! The parts of a Spin manifest (`spin.toml`, `spin_manifest_version = 2`) the host uses.
//!
//! Unknown keys are ignored, as the host only needs routes, cron triggers,
//! component sources, their capabilities and variables. Whether the store
//! labels components use exist depends on the runtime config, so that is
//! checked at start-up (`check_store_labels` in lib.rs).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    pub spin_manifest_version: Option<toml::Value>,
    #[serde(default)]
    pub application: Application,
    /// App-level variable declarations, `name = { default = "..." }` etc.
    #[serde(default)]
    pub variables: BTreeMap<String, VariableDecl>,
    #[serde(default)]
    pub trigger: Triggers,
    #[serde(default)]
    pub component: BTreeMap<String, ComponentDecl>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Application {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariableDecl {
    #[serde(default)]
    pub default: Option<String>,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub secret: bool,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Triggers {
    #[serde(default)]
    pub http: Vec<HttpTrigger>,
    #[serde(default)]
    pub cron: Vec<CronTrigger>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct HttpTrigger {
    #[serde(default)]
    pub id: Option<String>,
    pub route: RouteConfig,
    pub component: String,
}

/// `route = "/path"` or `route = { private = true }` (reachable only by service chaining).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum RouteConfig {
    Route(String),
    Private { private: bool },
}

#[derive(Debug, Clone, Deserialize)]
pub struct CronTrigger {
    pub component: String,
    pub cron_expression: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ComponentDecl {
    pub source: Source,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub sqlite_databases: Vec<String>,
    #[serde(default)]
    pub key_value_stores: Vec<String>,
    #[serde(default)]
    pub allowed_outbound_hosts: Vec<String>,
    /// Component variables: name -> template over app variables.
    #[serde(default)]
    pub variables: BTreeMap<String, String>,
    /// Environment variables Spin passes to the component's WASI environment.
    #[serde(default)]
    pub environment: BTreeMap<String, String>,
    /// Files the component reads, mounted read-only (files.rs).
    #[serde(default)]
    pub files: Vec<crate::files::FilesMount>,
    /// Globs, relative to the manifest's directory, of files `files` leaves out.
    #[serde(default)]
    pub exclude_files: Vec<String>,
    /// The models the component may use through `fermyon:spin/llm` (`llm.rs`).
    #[serde(default)]
    pub ai_models: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Source {
    Path(String),
    Remote { url: String, digest: String },
}

impl Manifest {
    pub fn parse(text: &str) -> Result<Manifest> {
        let manifest: Manifest = toml::from_str(text).context("invalid spin.toml")?;
        manifest.validate()?;
        Ok(manifest)
    }

    pub fn load(path: &Path) -> Result<Manifest> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read manifest {}", path.display()))?;
        Self::parse(&text).with_context(|| format!("in manifest {}", path.display()))
    }

    fn validate(&self) -> Result<()> {
        match &self.spin_manifest_version {
            Some(toml::Value::Integer(2)) => {}
            Some(toml::Value::String(s)) if s == "2" => {}
            other => bail!("only spin_manifest_version = 2 is supported (got {other:?})"),
        }
        for (name, decl) in &self.variables {
            crate::variables::validate_name(name)
                .with_context(|| format!("invalid application variable name {name:?}"))?;
            if decl.required && decl.default.is_some() {
                bail!("variable {name:?}: `required` and `default` are mutually exclusive");
            }
        }
        let triggers = self
            .trigger
            .http
            .iter()
            .map(|t| &t.component)
            .chain(self.trigger.cron.iter().map(|t| &t.component));
        for id in triggers {
            if !self.component.contains_key(id) {
                bail!("trigger refers to unknown component {id:?}");
            }
        }
        Ok(())
    }

    /// Absolute path of a component's wasm file (sources are relative to the manifest dir).
    pub fn component_source(&self, manifest_dir: &Path, id: &str) -> Result<PathBuf> {
        let c = self
            .component
            .get(id)
            .with_context(|| format!("unknown component {id:?}"))?;
        match &c.source {
            Source::Path(p) => Ok(manifest_dir.join(p)),
            Source::Remote { url, .. } => {
                bail!("component {id:?}: remote sources ({url}) are not supported by this host")
            }
        }
    }

    /// The components that some trigger uses, each once, in trigger order.
    pub fn triggered_components(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let ids = self
            .trigger
            .http
            .iter()
            .map(|t| &t.component)
            .chain(self.trigger.cron.iter().map(|t| &t.component));
        for id in ids {
            if !out.contains(id) {
                out.push(id.clone());
            }
        }
        out
    }

    /// Keeps only the triggers of `ids`, as `spin up -c <id>...` runs only those
    /// components (the other routes are not served, the other crons never fire).
    /// No ids: every component.
    pub fn select_components(&mut self, ids: &[String]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        for id in ids {
            if !self.component.contains_key(id) {
                bail!("Specified component \"{id}\" not found in application");
            }
        }
        self.trigger.http.retain(|t| ids.contains(&t.component));
        self.trigger.cron.retain(|t| ids.contains(&t.component));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"
spin_manifest_version = 2

[application]
name = "demo"
version = "1.0.0"

[variables]
partner_api_key = { required = true, secret = true }
log_level = { default = "info" }

[[trigger.http]]
route = "/v1/tenants"
component = "tenants"

[[trigger.http]]
route = "/v1/projects/..."
component = "tenants"

[[trigger.http]]
route = { private = true }
component = "internal"

[[trigger.cron]]
component = "sweeper"
cron_expression = "*/5 * * * * *"

[component.tenants]
source = "target/wasm32-wasip2/release/tenants.wasm"
sqlite_databases = ["default"]
key_value_stores = ["default"]
allowed_outbound_hosts = ["https://*:*", "http://127.0.0.1:*"]
[component.tenants.variables]
api_key = "{{ partner_api_key }}"
greeting = "level={{log_level}}!"
[component.tenants.build]
command = "cargo build --target wasm32-wasip2 --release"
watch = ["src/**/*.rs"]

[component.internal]
source = "internal.wasm"

[component.sweeper]
source = "sweeper.wasm"
sqlite_databases = ["default"]
"#;

    #[test]
    fn parses_sample_manifest() {
        let m = Manifest::parse(SAMPLE).unwrap();
        assert_eq!(m.application.name.as_deref(), Some("demo"));
        assert_eq!(m.variables.len(), 2);
        assert!(m.variables["partner_api_key"].required);
        assert!(m.variables["partner_api_key"].secret);
        assert_eq!(m.variables["log_level"].default.as_deref(), Some("info"));

        assert_eq!(m.trigger.http.len(), 3);
        assert_eq!(
            m.trigger.http[0].route,
            RouteConfig::Route("/v1/tenants".into())
        );
        assert_eq!(m.trigger.http[0].component, "tenants");
        assert_eq!(
            m.trigger.http[2].route,
            RouteConfig::Private { private: true }
        );
        assert_eq!(m.trigger.cron.len(), 1);
        assert_eq!(m.trigger.cron[0].cron_expression, "*/5 * * * * *");

        let t = &m.component["tenants"];
        assert_eq!(t.sqlite_databases, vec!["default"]);
        assert_eq!(t.key_value_stores, vec!["default"]);
        assert_eq!(t.allowed_outbound_hosts.len(), 2);
        assert_eq!(t.variables["api_key"], "{{ partner_api_key }}");
        assert!(m.component["internal"].allowed_outbound_hosts.is_empty());

        let dir = Path::new("/app");
        assert_eq!(
            m.component_source(dir, "tenants").unwrap(),
            Path::new("/app/target/wasm32-wasip2/release/tenants.wasm")
        );
        assert_eq!(
            m.triggered_components(),
            vec!["tenants", "internal", "sweeper"]
        );
    }

    #[test]
    fn selecting_components_keeps_only_their_triggers() {
        let mut m = Manifest::parse(SAMPLE).unwrap();
        m.select_components(&["tenants".to_string()]).unwrap();
        assert_eq!(m.triggered_components(), vec!["tenants"]);
        assert!(m.trigger.cron.is_empty(), "the sweeper's cron is not scheduled");
        let mut all = Manifest::parse(SAMPLE).unwrap();
        all.select_components(&[]).unwrap();
        assert_eq!(all.triggered_components(), vec!["tenants", "internal", "sweeper"]);
        let error = Manifest::parse(SAMPLE).unwrap().select_components(&["nope".to_string()]).unwrap_err();
        assert!(error.to_string().contains("\"nope\" not found"), "{error}");
    }

    #[test]
    fn rejects_bad_manifests() {
        // Wrong version.
        assert!(Manifest::parse("spin_manifest_version = 1").is_err());
        // Trigger pointing at a missing component.
        let bad =
            "spin_manifest_version = 2\n[[trigger.http]]\nroute = \"/\"\ncomponent = \"nope\"\n";
        assert!(Manifest::parse(bad).is_err());
        // (Store labels other than "default" are checked at start-up against
        // the runtime config: see `check_store_labels` in lib.rs.)
        // required + default.
        let bad =
            "spin_manifest_version = 2\n[variables]\nx = { required = true, default = \"1\" }\n";
        assert!(Manifest::parse(bad).is_err());
        // Invalid variable name.
        let bad = "spin_manifest_version = 2\n[variables]\nBad = { default = \"1\" }\n";
        assert!(Manifest::parse(bad).is_err());
    }
}
