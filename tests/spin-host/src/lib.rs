//! A small Spin-compatible host for the project's WebAssembly components.
//!
//! The real Spin CLI is not available everywhere the project is built, so
//! end-to-end tests and `make up` run the components (wasm32-wasip2, spin-sdk
//! 5.2) with this host instead. It mirrors what `spin up` does as far as an app
//! can observe:
//!
//! - reads `spin.toml` (manifest v2): `[variables]`, `[[trigger.http]]`,
//!   `[[trigger.cron]]`, `[component.<id>]` (`source`, `sqlite_databases`,
//!   `key_value_stores`, `allowed_outbound_hosts`, `variables`, `environment`,
//!   `files` and `exclude_files`, mounted read-only as Spin does: `files.rs`);
//! - routes HTTP requests like Spin's router (exact > `:param` > wildcard,
//!   longest prefix first, `/...` catch-all), sets Spin's `spin-*` headers,
//!   answers 404 (empty body) when nothing matches and 500 (empty body) when a
//!   component fails, serves `/.well-known/spin/health`;
//! - runs each request (and each cron event) in a fresh instance of a
//!   pre-instantiated component, compiled once per process by one shared engine
//!   (and kept in wasmtime's on-disk cache across processes);
//! - provides WASI 0.2, `wasi:http` (incoming and outgoing, outgoing checked
//!   against `allowed_outbound_hosts`), and `fermyon:spin@2.0.0` `sqlite`,
//!   `key-value`, `variables` and `llm` (`llm.rs`: `ai_models`, the runtime
//!   config's `llm_compute`, one call at a time) with Spin 4.0.2's local semantics:
//!   `<state-dir>/sqlite_db.db` with a new connection per `open` (see `sqlite.rs`)
//!   and `<state-dir>/sqlite_key_value.db` through one shared connection per app;
//!   any other import links but traps when called;
//! - reads Spin's runtime config file (`--runtime-config-file`): key-value
//!   stores on local SQLite files or Redis, SQLite databases on local files or
//!   a libSQL server (Spin's libSQL client, one per open: `sqlite_libsql.rs`),
//!   `env` and `static` variables providers, extra store labels (see
//!   `runtime_config.rs`); what it cannot do (Vault, Azure, ...) fails at start-up;
//! - fires cron components on schedule (`spin-trigger-cron` semantics);
//! - logs each component's stdout and stderr as `spin up` does, to
//!   `<log dir>/<component>_stdout.txt` and `_stderr.txt` (files opened by every
//!   instance) and to its own stderr (`stdio.rs`).
//!
//! # Library use (sync, from plain `#[test]` functions)
//!
//! ```no_run
//! use spin_host::{Host, HostConfig};
//! # fn main() -> anyhow::Result<()> {
//! let mut config = HostConfig::new("spin.toml");     // listen 127.0.0.1:0, state dir .spin next to it
//! config.state_dir = std::env::temp_dir().join("my-test-state");
//! config.variables.insert("partner_api_key".into(), "test-key".into());
//! let host = Host::start(config)?;                  // compiles, binds, serves
//! let url = format!("{}/v1/tenants", host.base_url()); // "http://127.0.0.1:PORT/v1/tenants"
//! // ... send requests ...
//! host.run_cron("sweeper")?;                        // fire a cron component once, wait
//! host.stop();                                      // graceful; dropping the Host also stops it
//! # Ok(()) }
//! ```
//!
//! `HostConfig` fields: `manifest` (path to spin.toml), `listen` (port 0 picks a
//! free port), `state_dir`, `variables` (overrides of app variables, highest
//! priority, above `SPIN_VARIABLE_<NAME>` and defaults), `enable_cron`
//! (schedule the cron triggers; `run_cron` works either way) and
//! `runtime_config_file` (Spin's `--runtime-config-file`; `None`: only the
//! `default` stores, in `state_dir`).
//!
//! The server runs on its own tokio runtime in a background thread, so the
//! `Host` methods can be called from any thread, async or not.
//!
//! # CLI
//!
//! `spin-host up [-f|--from spin.toml] [--listen 127.0.0.1:3000] [--state-dir DIR]
//! [--runtime-config-file FILE] [--variable NAME=VALUE]... [--sqlite SQL|@file]...`
//! (see `spin-host --help`).

pub mod bindings;
pub mod cron;
pub mod files;
pub mod key_value;
pub mod llm;
pub mod manifest;
pub mod outbound;
pub mod routes;
pub mod runtime_config;
pub mod server;
pub mod sqlite;
pub mod sqlite_libsql;
pub mod state;
pub mod stdio;
pub mod variables;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use tokio::sync::watch;

use crate::manifest::{Manifest, RouteConfig};
use crate::routes::Router;
use crate::runtime_config::RuntimeConfig;
use crate::server::App;
use crate::state::AppState;

/// How to start a [`Host`].
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Path to `spin.toml`; component sources are relative to its directory.
    pub manifest: PathBuf,
    /// Address to listen on; port 0 picks a free port (see [`Host::addr`]).
    pub listen: SocketAddr,
    /// Where `sqlite_db.db` and `sqlite_key_value.db` live (created if missing).
    pub state_dir: PathBuf,
    /// App variable values that win over `SPIN_VARIABLE_*` and defaults.
    pub variables: HashMap<String, String>,
    /// Run `[[trigger.cron]]` components on their schedules.
    pub enable_cron: bool,
    /// Spin's runtime config file (`spin up --runtime-config-file`), if any:
    /// key-value stores (`spin`, `redis`), SQLite databases (`spin`, `libsql`), variables
    /// providers (`env`, `static`), store labels besides `default`. `state_dir`
    /// above wins over a `state_dir` set in the file (as `--state-dir` does in Spin).
    pub runtime_config_file: Option<PathBuf>,
    /// Run only these components (`spin up -c <id>`); empty: all of them.
    pub components: Vec<String>,
    /// Where component output is logged (`spin up --log-dir`; empty: nowhere
    /// but stderr); `None`: the runtime config's `log_dir`, else `<state_dir>/logs`.
    pub log_dir: Option<PathBuf>,
}

impl HostConfig {
    /// Defaults like `spin up -f <manifest>`, but on a free port:
    /// `127.0.0.1:0`, state dir `.spin` next to the manifest, no overrides, cron on.
    pub fn new(manifest: impl Into<PathBuf>) -> HostConfig {
        let manifest = manifest.into();
        let state_dir = default_state_dir(&manifest);
        HostConfig {
            manifest,
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            state_dir,
            variables: HashMap::new(),
            enable_cron: true,
            runtime_config_file: None,
            components: Vec::new(),
            log_dir: None,
        }
    }
}

/// What Spin checks at start-up: every store label a component lists exists
/// (`default` always does; others only when the runtime config defines them).
pub fn check_store_labels(manifest: &Manifest, state: &AppState) -> Result<()> {
    for (id, c) in &manifest.component {
        for label in &c.key_value_stores {
            if !state.key_value.contains(label) {
                bail!(
                    "unknown key_value_stores label {label:?} for component {id:?} \
                     (define it as [key_value_store.{label}] in a runtime config file)"
                );
            }
        }
    }
    let mut missing: Vec<String> = Vec::new();
    for (id, c) in &manifest.component {
        for label in &c.sqlite_databases {
            if !state.sqlite.contains_key(label) {
                missing.push(format!("- Component {id} uses database '{label}'"));
            }
        }
    }
    if !missing.is_empty() {
        bail!(
            "One or more components use SQLite databases which are not defined.\n\
             Check the spelling, or pass a runtime configuration file that defines these stores.\n\
             See https://spinframework.dev/dynamic-configuration#sqlite-storage-runtime-configuration\n\
             Details:\n{}",
            missing.join("\n")
        );
    }
    Ok(())
}

/// `.spin` next to the manifest, like Spin's default state directory.
pub fn default_state_dir(manifest: &Path) -> PathBuf {
    let dir = manifest.parent().unwrap_or(Path::new(""));
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    dir.join(".spin")
}

/// A running app. Stops on [`Host::stop`] or when dropped.
pub struct Host {
    addr: SocketAddr,
    app: Arc<App>,
    runtime: tokio::runtime::Handle,
    shutdown: watch::Sender<bool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Host {
    /// Loads the manifest, compiles and links the components, binds the
    /// listener and starts serving (and scheduling cron triggers if enabled).
    pub fn start(config: HostConfig) -> Result<Host> {
        let manifest_path = std::path::absolute(&config.manifest)
            .with_context(|| format!("bad manifest path {}", config.manifest.display()))?;
        let mut manifest = Manifest::load(&manifest_path)?;
        manifest.select_components(&config.components)?;
        let manifest_dir = manifest_path
            .parent()
            .unwrap_or(Path::new("/"))
            .to_path_buf();

        let state_dir = std::path::absolute(&config.state_dir)?;
        std::fs::create_dir_all(&state_dir)
            .with_context(|| format!("cannot create state dir {}", state_dir.display()))?;

        let runtime_config = match &config.runtime_config_file {
            Some(path) => RuntimeConfig::load(path)?,
            None => RuntimeConfig::default(),
        };
        runtime_config.ensure_supported()?;

        let mut sources = variables::Sources::from_process(config.variables.clone());
        sources.providers = runtime_config::variable_providers(&runtime_config)?;
        let resolver = variables::Resolver::new(&manifest, sources)?;
        let state = Arc::new(AppState::new(resolver, &runtime_config, &state_dir, config.log_dir.as_deref())?);
        if let Some(dir) = &state.log_dir {
            eprintln!("Logging component stdio to \"{}/\"", dir.display());
        }
        check_store_labels(&manifest, &state)?;

        // Private routes are reachable only by service chaining, not by URL.
        let mut routes = Vec::new();
        for t in &manifest.trigger.http {
            match &t.route {
                RouteConfig::Route(r) => routes.push((t.component.as_str(), r.as_str())),
                RouteConfig::Private { private: true } => {}
                RouteConfig::Private { private: false } => bail!(
                    "route must be a string pattern or '{{ private = true }}': component '{}' has {{ private = false }}",
                    t.component
                ),
            }
        }
        let router = Router::build(routes)?;
        for (replaced, route) in &router.duplicates {
            eprintln!("warning: duplicate route {route}: component {replaced:?} will never be used for it");
        }

        let mut components = HashMap::new();
        for id in manifest.triggered_components() {
            let http = manifest.trigger.http.iter().any(|t| t.component == id);
            let cron = manifest.trigger.cron.iter().any(|t| t.component == id);
            components.insert(
                id.clone(),
                state::load(&manifest, &manifest_dir, &id, http, cron, &state.variables)?,
            );
        }
        let schedules = manifest
            .trigger
            .cron
            .iter()
            .map(|t| {
                Ok((
                    t.component.clone(),
                    cron::parse_schedule(&t.cron_expression)?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;

        let app = Arc::new(App {
            router,
            components,
            state,
            app_name: manifest.application.name.clone().unwrap_or_default(),
            app_version: manifest.application.version.clone().unwrap_or_default(),
        });

        let (shutdown, shutdown_rx) = watch::channel(false);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let listen = config.listen;
        let enable_cron = config.enable_cron;
        let thread_app = app.clone();
        let thread = std::thread::Builder::new()
            .name("spin-host".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_multi_thread()
                    .enable_all()
                    .thread_name("spin-host-worker")
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = ready_tx.send(Err(anyhow::Error::from(e)));
                        return;
                    }
                };
                rt.block_on(async move {
                    let listener = match tokio::net::TcpListener::bind(listen).await {
                        Ok(l) => l,
                        Err(e) => {
                            let _ = ready_tx
                                .send(Err(anyhow::anyhow!("Unable to listen on {listen}: {e}")));
                            return;
                        }
                    };
                    let addr = match listener.local_addr() {
                        Ok(a) => a,
                        Err(e) => {
                            let _ = ready_tx.send(Err(e.into()));
                            return;
                        }
                    };
                    let mut tasks = Vec::new();
                    if enable_cron {
                        for (component, schedule) in schedules {
                            tasks.push(tokio::spawn(cron::schedule_loop(
                                thread_app.clone(),
                                component,
                                schedule,
                                shutdown_rx.clone(),
                            )));
                        }
                    }
                    let _ = ready_tx.send(Ok((addr, tokio::runtime::Handle::current())));
                    server::serve(thread_app, listener, shutdown_rx).await;
                    for t in tasks {
                        let _ = t.await;
                    }
                });
                // Let blocking SQLite calls still running finish, briefly.
                rt.shutdown_timeout(std::time::Duration::from_secs(5));
            })?;

        let (addr, runtime) = match ready_rx.recv() {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => {
                let _ = thread.join();
                return Err(e);
            }
            Err(_) => {
                let _ = thread.join();
                bail!("the spin-host runtime thread died during startup");
            }
        };
        Ok(Host {
            addr,
            app,
            runtime,
            shutdown,
            thread: Some(thread),
        })
    }

    /// The address actually listened on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://IP:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `(component, route)` pairs as `spin up` lists them, e.g.
    /// `("tenants", "/v1/tenants")` or `("projects", "/v1/projects (wildcard)")`.
    pub fn routes(&self) -> Vec<(String, String)> {
        self.app.router.routes()
    }

    /// Runs a cron component's `handle-cron-event` once, now, and waits for it.
    /// `Err` if the component is not a cron component, trapped, or returned an error.
    pub fn run_cron(&self, component: &str) -> Result<()> {
        let (tx, rx) = std::sync::mpsc::channel();
        let app = self.app.clone();
        let component = component.to_string();
        self.runtime.spawn(async move {
            let _ = tx.send(cron::run_logged(app, component).await);
        });
        rx.recv().context("the spin-host runtime stopped")?
    }

    /// Stops accepting connections, lets in-flight requests and cron runs
    /// finish (bounded wait), stops the cron schedules and the runtime.
    pub fn stop(mut self) {
        self.shutdown_and_join();
    }

    fn shutdown_and_join(&mut self) {
        let _ = self.shutdown.send(true);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.shutdown_and_join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_labels_other_than_default_need_the_runtime_config() {
        let manifest = Manifest::parse(
            "spin_manifest_version = 2\n[component.a]\nsource = \"a.wasm\"\n\
             key_value_stores = [\"default\", \"cache\"]\nsqlite_databases = [\"default\", \"reports\"]\n",
        )
        .unwrap();
        let dir = std::env::temp_dir().join(format!("spin-host-labels-{}", std::process::id()));
        let check = |runtime_config: &str| {
            let resolver =
                variables::Resolver::new(&manifest, variables::Sources::default()).unwrap();
            let config = RuntimeConfig::parse(runtime_config, None).unwrap();
            let state = AppState::new(resolver, &config, &dir, Some(Path::new(""))).unwrap();
            check_store_labels(&manifest, &state).map_err(|e| format!("{e:#}"))
        };
        let e = check("").unwrap_err();
        assert!(
            e.contains("unknown key_value_stores label \"cache\" for component \"a\""),
            "{e}"
        );
        let e = check("[key_value_store.cache]\ntype = \"spin\"\n").unwrap_err();
        assert!(e.contains("- Component a uses database 'reports'"), "{e}");
        check("[key_value_store.cache]\ntype = \"spin\"\n[sqlite_database.reports]\ntype = \"spin\"\n").unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
