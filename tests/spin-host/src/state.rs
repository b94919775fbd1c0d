//! The wasmtime side: one process-wide `Engine`, a cache of compiled
//! components, the `Linker` with every import our components use, and the
//! per-instance store data.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use anyhow::{Context, Result};
use wasmtime::component::{Component, HasSelf, InstancePre, Linker, ResourceTable};
use wasmtime::{Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};
use wasmtime_wasi_http::p2::bindings::ProxyPre;
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

use crate::bindings::cron::SpinCronPre;
use crate::bindings::spin::fermyon::spin::{key_value, llm, sqlite, variables};
use crate::manifest::Manifest;
use crate::outbound::{AllowedHosts, OutboundHooks};
use crate::key_value::KvStores;
use crate::sqlite::Database;
use crate::variables::Resolver;

/// State shared by all components of one running app.
pub struct AppState {
    pub variables: Resolver,
    /// SQLite databases by label (`default`: `<state-dir>/sqlite_db.db` unless
    /// the runtime config says otherwise), a connection per open.
    pub sqlite: HashMap<String, Database>,
    /// Key-value stores by label (`default`: `<state-dir>/sqlite_key_value.db`
    /// unless the runtime config says otherwise), one connection per store.
    pub key_value: KvStores,
    /// Where each instance logs its stdout and stderr (`stdio.rs`); `None`: stderr only.
    pub log_dir: Option<PathBuf>,
    /// The app's one language-model engine (`llm.rs`), one call at a time.
    pub llm: crate::llm::SharedEngine,
}

impl AppState {
    /// The stores of a runtime config (an empty one: only the `default`
    /// stores in `state_dir`, as without `--runtime-config-file`), and the log
    /// dir: `log_dir` (`--log-dir`), else the runtime config's, else
    /// `<state_dir>/logs`.
    pub fn new(
        variables: Resolver,
        config: &crate::runtime_config::RuntimeConfig,
        state_dir: &Path,
        log_dir: Option<&Path>,
    ) -> Result<AppState> {
        let sqlite = config
            .sqlite_backends(state_dir)?
            .iter()
            .map(|(label, backend)| Ok((label.clone(), Database::create(backend)?)))
            .collect::<Result<HashMap<_, _>>>()?;
        let key_value = KvStores::new(&config.key_value_backends(state_dir)?);
        let log_dir = crate::stdio::log_dir(log_dir.or(config.log_dir.as_deref().map(Path::new)), state_dir)?;
        let llm = Arc::new(tokio::sync::Mutex::new(crate::llm::Engine::for_app(config.llm_compute.as_ref(), state_dir)));
        Ok(AppState {
            variables,
            sqlite,
            key_value,
            log_dir,
            llm,
        })
    }
}

/// What a component is allowed to use, from its manifest section.
pub struct ComponentInfo {
    pub id: String,
    pub sqlite_databases: Vec<String>,
    pub key_value_stores: Vec<String>,
    pub allowed_hosts: Arc<AllowedHosts>,
    pub environment: Vec<(String, String)>,
    /// Its `files`, preopened read-only in every instance.
    pub mounts: crate::files::Mounts,
    /// The models it may use through `fermyon:spin/llm` (its `ai_models`).
    pub ai_models: std::collections::HashSet<String>,
}

/// The data of one instance's `Store`.
pub struct StoreState {
    pub wasi: WasiCtx,
    pub http: WasiHttpCtx,
    pub table: ResourceTable,
    pub hooks: OutboundHooks,
    pub component: Arc<ComponentInfo>,
    pub app: Arc<AppState>,
    /// SQLite connections this instance holds open (Spin caps them).
    pub open_sqlite_connections: usize,
    /// Key-value stores this instance holds open (Spin caps them too).
    pub open_kv_stores: usize,
}

impl WasiView for StoreState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl WasiHttpView for StoreState {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.hooks,
        }
    }
}

impl variables::Host for StoreState {
    async fn get(&mut self, name: String) -> wasmtime::Result<Result<String, variables::Error>> {
        use crate::variables::VarError;
        Ok(self
            .app
            .variables
            .get(&self.component.id, &name)
            .map_err(|e| match e {
                VarError::InvalidName(m) => variables::Error::InvalidName(m),
                VarError::Undefined(m) => variables::Error::Undefined(m),
                VarError::Provider(m) => variables::Error::Provider(m),
                VarError::Other(m) => variables::Error::Other(m),
            }))
    }
}

/// How often the epoch advances (Spin's `DEFAULT_EPOCH_TICK_INTERVAL`).
const EPOCH_TICK: std::time::Duration = std::time::Duration::from_millis(10);

/// The process-wide engine: compiled components can only be shared between
/// hosts that use the same engine. Configured as Spin 4.0.2 configures its own
/// (crate `spin-core`), because the configuration decides what a request
/// costs: epoch interruption (every loop and call of the guest checks the
/// epoch; a thread advances it every 10 ms; a store's deadline is never
/// reached), and the pooling instance allocator with Spin's limits where the
/// machine allows it (else on-demand allocation, as Spin falls back).
pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let mut config = wasmtime::Config::new();
        config.epoch_interruption(true);
        if std::env::var_os("SPIN_HOST_PERFMAP").is_some() {
            config.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        config.wasm_component_model(true);
        config.wasm_component_model_async(true);
        if pooling_works() {
            config.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(spin_pooling()));
        }
        // Like Spin, keep compiled code in wasmtime's on-disk cache so that a
        // new process (each test binary, each `make up`) does not recompile
        // unchanged components. The cache stays inside the repository's
        // target dir (or SPIN_HOST_CACHE_DIR); SPIN_HOST_DISABLE_CACHE=1 turns it off.
        if std::env::var_os("SPIN_HOST_DISABLE_CACHE").is_none() {
            let directory = std::env::var_os("SPIN_HOST_CACHE_DIR")
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| {
                    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/spin-host-cache")
                });
            let mut cache_config = wasmtime::CacheConfig::new();
            cache_config.with_directory(directory);
            match wasmtime::Cache::new(cache_config) {
                Ok(cache) => {
                    config.cache(Some(cache));
                }
                Err(e) => eprintln!("warning: wasmtime compilation cache disabled: {e:#}"),
            }
        }
        let engine = Engine::new(&config).expect("failed to create the wasmtime engine");
        let ticker = engine.weak();
        std::thread::Builder::new()
            .name("spin-host-epoch".into())
            .spawn(move || {
                while let Some(engine) = ticker.upgrade() {
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(EPOCH_TICK);
                }
            })
            .expect("the epoch ticker thread starts");
        engine
    })
}

/// Spin's pooling allocator settings (its defaults, for 1,000 instances).
fn spin_pooling() -> wasmtime::PoolingAllocationConfig {
    const MB: usize = 1 << 20;
    const MAX_INSTANCES: u32 = 1_000;
    let mut pooling = wasmtime::PoolingAllocationConfig::default();
    pooling
        .total_component_instances(MAX_INSTANCES)
        .total_memories(MAX_INSTANCES)
        .total_tables(2 * MAX_INSTANCES)
        .total_stacks(MAX_INSTANCES)
        .total_core_instances(4 * MAX_INSTANCES)
        .table_elements(100_000)
        .max_component_instance_size(10 * MB)
        .max_core_instance_size(10 * MB)
        .max_core_instances_per_component(200)
        .max_tables_per_component(64)
        .max_memories_per_component(32)
        .max_tables_per_module(2)
        .max_memories_per_module(2)
        .max_memory_size(4 << 30)
        .linear_memory_keep_resident(2 * MB)
        .table_keep_resident(MB / 2);
    pooling
}

/// Whether an engine with the pooling allocator can be made here (it reserves
/// a lot of virtual memory); Spin tries the same before using it.
fn pooling_works() -> bool {
    let mut config = wasmtime::Config::new();
    config.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(spin_pooling()));
    match Engine::new(&config) {
        Ok(_) => true,
        Err(error) => {
            eprintln!("spin-host: the pooling allocator is not available here ({error:#}); allocating on demand, as Spin does then");
            false
        }
    }
}

/// Compiles a component once per process, keyed by path + size + mtime so a
/// rebuilt file is picked up.
pub fn compile(path: &Path) -> Result<Component> {
    type Key = (PathBuf, u64, Option<SystemTime>);
    static CACHE: OnceLock<Mutex<HashMap<Key, Component>>> = OnceLock::new();
    let meta = std::fs::metadata(path)
        .with_context(|| format!("component file {} not found (is it built?)", path.display()))?;
    let key = (path.to_path_buf(), meta.len(), meta.modified().ok());
    // Holding the lock while compiling makes concurrent starts wait for one
    // compilation instead of each doing it.
    let mut cache = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(c) = cache.get(&key) {
        return Ok(c.clone());
    }
    let component = Component::from_file(engine(), path)
        .map_err(anyhow::Error::from)
        .with_context(|| format!("failed to compile {}", path.display()))?;
    cache.retain(|(p, _, _), _| p != path);
    cache.insert(key, component.clone());
    Ok(component)
}

/// A component ready to be instantiated, once per request or cron event.
pub struct LoadedComponent {
    pub info: Arc<ComponentInfo>,
    pub http: Option<ProxyPre<StoreState>>,
    pub cron: Option<SpinCronPre<StoreState>>,
}

fn linker(component: &Component) -> Result<Linker<StoreState>> {
    let mut linker = Linker::new(engine());
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)?;
    sqlite::add_to_linker::<_, HasSelf<StoreState>>(&mut linker, |s| s)?;
    key_value::add_to_linker::<_, HasSelf<StoreState>>(&mut linker, |s| s)?;
    variables::add_to_linker::<_, HasSelf<StoreState>>(&mut linker, |s| s)?;
    llm::add_to_linker::<_, HasSelf<StoreState>>(&mut linker, |s| s)?;
    // The cron world `use`s cron-types, so cron components import this
    // types-only instance; it has nothing to define but must exist.
    linker.instance("fermyon:spin-cron/cron-types@2.0.0")?;
    stub_unknown_imports(&mut linker, component)?;
    Ok(linker)
}

/// Whether the linker above provides an import. The WASI 0.2 interfaces are
/// matched by package so any 0.2.x version counts (wasmtime resolves those by
/// semver).
fn provided(name: &str) -> bool {
    const SPIN: [&str; 5] = [
        "fermyon:spin/sqlite@2.0.0",
        "fermyon:spin/key-value@2.0.0",
        "fermyon:spin/variables@2.0.0",
        "fermyon:spin/llm@2.0.0",
        "fermyon:spin-cron/cron-types@2.0.0",
    ];
    if SPIN.contains(&name) {
        return true;
    }
    let Some((path, version)) = name.split_once('@') else {
        return false;
    };
    let wasi_0_2 = version.starts_with("0.2.") && !version.contains('-');
    let known = match path.split_once('/') {
        Some(("wasi:http", iface)) => matches!(iface, "types" | "outgoing-handler"),
        Some((pkg, _)) => matches!(
            pkg,
            "wasi:cli"
                | "wasi:clocks"
                | "wasi:filesystem"
                | "wasi:io"
                | "wasi:random"
                | "wasi:sockets"
        ),
        None => false,
    };
    wasi_0_2 && known
}

/// Defines every import we do not provide (e.g. `fermyon:spin/mqtt@2.0.0`) so
/// that the component still loads, but any call to it traps.
///
/// Not `Linker::define_unknown_imports_as_traps`: it looks names up exactly, so
/// for an import such as `wasi:http/types@0.2.6` (which the linker serves under
/// another 0.2.x version) it would shadow the real implementation with stubs.
fn stub_unknown_imports(linker: &mut Linker<StoreState>, component: &Component) -> Result<()> {
    use wasmtime::component::types::ComponentItem;
    use wasmtime::component::ResourceType;
    let engine = engine();
    let ty = component.component_type();
    for (name, item) in ty.imports(engine) {
        if provided(name) {
            continue;
        }
        match item.ty {
            ComponentItem::ComponentInstance(inst) => {
                let mut li = linker.instance(name)?;
                for (export, item) in inst.exports(engine) {
                    let full = format!("{name}#{export}");
                    match item.ty {
                        ComponentItem::ComponentFunc(_) => {
                            li.func_new(export, move |_, _, _, _| {
                                wasmtime::bail!(
                                    "unknown import: `{full}` is not provided by this host"
                                )
                            })?
                        }
                        ComponentItem::Resource(_) => {
                            li.resource(export, ResourceType::host::<()>(), |_, _| Ok(()))?
                        }
                        _ => {}
                    }
                }
            }
            ComponentItem::ComponentFunc(_) => {
                let full = name.to_string();
                linker.root().func_new(name, move |_, _, _, _| {
                    wasmtime::bail!("unknown import: `{full}` is not provided by this host")
                })?
            }
            _ => {}
        }
    }
    Ok(())
}

/// Compiles (or takes from the cache) and pre-instantiates a component.
pub fn load(
    manifest: &Manifest,
    manifest_dir: &Path,
    id: &str,
    http: bool,
    cron: bool,
    variables: &Resolver,
) -> Result<LoadedComponent> {
    let decl = &manifest.component[id];
    let path = manifest.component_source(manifest_dir, id)?;
    let component = compile(&path)?;
    let pre: InstancePre<StoreState> = linker(&component)
        .and_then(|l| Ok(l.instantiate_pre(&component)?))
        .with_context(|| format!("component {id:?} ({}) cannot be linked", path.display()))?;
    let http = if http {
        Some(ProxyPre::new(pre.clone()).map_err(anyhow::Error::from).with_context(|| {
            format!("component {id:?} has an HTTP trigger but does not export wasi:http/incoming-handler@0.2.x")
        })?)
    } else {
        None
    };
    let cron =
        if cron {
            Some(SpinCronPre::new(pre).map_err(anyhow::Error::from).with_context(|| {
            format!("component {id:?} has a cron trigger but does not export handle-cron-event")
        })?)
        } else {
            None
        };
    let info = ComponentInfo {
        id: id.to_string(),
        sqlite_databases: decl.sqlite_databases.clone(),
        key_value_stores: decl.key_value_stores.clone(),
        allowed_hosts: Arc::new(
            AllowedHosts::parse(&resolved_hosts(&decl.allowed_outbound_hosts, variables)?)
                .with_context(|| format!("component {id:?}: invalid allowed_outbound_hosts"))?,
        ),
        environment: decl
            .environment
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        mounts: crate::files::Mounts::prepare(manifest_dir, &decl.files, &decl.exclude_files)
            .with_context(|| format!("component {id:?}: cannot mount its files"))?,
        ai_models: decl.ai_models.iter().cloned().collect(),
    };
    Ok(LoadedComponent {
        info: Arc::new(info),
        http,
        cron,
    })
}

/// `allowed_outbound_hosts` with their `{{ variable }}` templates filled in
/// from the app's variables, as Spin 4.0.2 does before it checks a request
/// (`spin-outbound-networking-config`: the resolved text is parsed like any
/// entry). The values are fixed for the host's life, so they are resolved once.
fn resolved_hosts(entries: &[String], variables: &Resolver) -> Result<Vec<String>> {
    entries
        .iter()
        .map(|entry| {
            let mut resolved = String::new();
            for part in crate::variables::parse_template(entry)? {
                match part {
                    crate::variables::Part::Lit(text) => resolved.push_str(&text),
                    crate::variables::Part::Expr(name) => resolved.push_str(
                        &variables
                            .app_value(&name)
                            .map_err(|error| anyhow::anyhow!("allowed_outbound_hosts entry {entry:?}: {error}"))?,
                    ),
                }
            }
            Ok(resolved)
        })
        .collect()
}

/// A fresh store for one instance: its own WASI context with stdout and
/// stderr logged as Spin does (`stdio.rs`: the component's log files, opened
/// now, and the host's stderr), no stdin, its `files` preopened read-only,
/// and only the manifest's `environment` variables.
pub fn new_store(info: &Arc<ComponentInfo>, app: &Arc<AppState>) -> Result<Store<StoreState>> {
    let (stdout, stderr) = crate::stdio::instance_output(app.log_dir.as_deref(), &info.id)?;
    let mut wasi = WasiCtx::builder();
    wasi.stdout(stdout).stderr(stderr).envs(&info.environment);
    info.mounts.preopen(&mut wasi)?;
    let wasi = wasi.build();
    let mut store = Store::new(
        engine(),
        StoreState {
            wasi,
            http: WasiHttpCtx::new(),
            table: ResourceTable::new(),
            hooks: OutboundHooks {
                component: info.id.clone(),
                allowed: info.allowed_hosts.clone(),
            },
            component: info.clone(),
            app: app.clone(),
            open_sqlite_connections: 0,
            open_kv_stores: 0,
        },
    );
    // As Spin: epochs are counted, but a request is never interrupted by them.
    store.set_epoch_deadline(u64::MAX / 2);
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::provided;

    #[test]
    fn provided_imports() {
        for yes in [
            "wasi:http/types@0.2.6",
            "wasi:http/outgoing-handler@0.2.0",
            "wasi:io/streams@0.2.3",
            "wasi:cli/stdout@0.2.6",
            "wasi:sockets/tcp@0.2.0",
            "fermyon:spin/sqlite@2.0.0",
            "fermyon:spin/variables@2.0.0",
            "fermyon:spin/llm@2.0.0",
            "fermyon:spin-cron/cron-types@2.0.0",
        ] {
            assert!(provided(yes), "{yes}");
        }
        for no in [
            "fermyon:spin/mqtt@2.0.0",
            "fermyon:spin/sqlite@3.0.0",
            "spin:sqlite/sqlite@3.0.0",
            "wasi:http/incoming-handler@0.2.0",
            "wasi:keyvalue/store@0.2.0-draft2",
            "wasi:http/types@0.2.0-rc-2023-11-10",
            "wasi:http/types@0.3.0",
            "wasi:config/store@0.2.0-draft",
        ] {
            assert!(!provided(no), "{no}");
        }
    }
}
