//! Spin's runtime configuration file (`spin up --runtime-config-file <path>`),
//! read the way Spin 4.0.2 reads it (crates `spin-runtime-config`,
//! `spin-factor-key-value`, `spin-key-value-spin`, `spin-key-value-redis`,
//! `spin-sqlite` and `spin-variables-env` at tag v4.0.2).
//!
//! What this host implements:
//!
//! - `[key_value_store.<label>]` with `type = "spin"` (a local SQLite file at
//!   `path`, relative to the runtime config file's directory; without `path`
//!   an in-memory store) and `type = "redis"` (`url = "redis://..."`: keys are
//!   stored as they are, with no label prefix, and `get-keys` lists the whole
//!   Redis database, as in Spin);
//! - `[sqlite_database.<label>]` with `type = "spin"` (`path` relative to the
//!   current directory, as Spin 4.0.2 resolves it; without `path` every open is
//!   a fresh in-memory database; `allow_attach_file`) and `type = "libsql"`
//!   (`url` over http(s), `token`: a libSQL server such as sqld or Turso,
//!   through Spin's own client, see `sqlite_libsql.rs`);
//! - `[[variables_provider]]` (or the older `[[config_provider]]`) with
//!   `type = "env"` (`prefix`, `dotenv_path`) and `type = "static"` (`values`),
//!   ahead of the default `SPIN_VARIABLE_*` provider, in file order;
//! - `[llm_compute]` (`type = "spin"`: the local engine in
//!   `<state-dir>/ai-models`, as without it; `type = "remote_http"` with `url`,
//!   `auth_token` and `api_type`): see `llm.rs`;
//! - `state_dir` (used by `spin-host up` when `--state-dir` is not given) and
//!   `log_dir` (when `--log-dir` is not given; see `stdio.rs`).
//!
//! `default` always exists for both stores: when the file does not define it,
//! it is `<state-dir>/sqlite_key_value.db` and `<state-dir>/sqlite_db.db`.
//! Other labels exist only when the file defines them.
//!
//! Everything else Spin accepts (`vault` and `azure_key_vault` variables
//! providers, `azure_cosmos` and `aws_dynamo` key-value stores,
//! `outbound_http`, `outbound_networking`, `client_tls`, `max_instance_memory`)
//! parses, and [`RuntimeConfig::ensure_supported`] (called at start-up) refuses
//! it with a message that says so. A key Spin does not know fails parsing with
//! Spin's own message: `unused runtime config key(s): ...`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;

/// The `default` label of both stores.
pub const DEFAULT_LABEL: &str = "default";
/// File name of the `default` key-value store in the state directory.
pub const DEFAULT_KEY_VALUE_FILE: &str = "sqlite_key_value.db";
/// File name of the `default` SQLite database in the state directory.
pub const DEFAULT_SQLITE_FILE: &str = "sqlite_db.db";

/// Top-level keys Spin 4.0.2 reads that this host does not implement.
const UNSUPPORTED_KEYS: [&str; 4] = [
    "outbound_http",
    "outbound_networking",
    "client_tls",
    "max_instance_memory",
];

/// A parsed runtime configuration file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuntimeConfig {
    /// The file it was read from (absolute), if any: its directory anchors
    /// relative `path`s of `spin` key-value stores.
    pub file: Option<PathBuf>,
    pub key_value_stores: BTreeMap<String, KeyValueStoreConfig>,
    pub sqlite_databases: BTreeMap<String, SqliteDatabaseConfig>,
    /// In priority order (the first that has a value wins).
    pub variables_providers: Vec<VariablesProviderConfig>,
    /// `state_dir`: `Some("")` means "unset" in Spin (in-memory default stores).
    pub state_dir: Option<String>,
    pub log_dir: Option<String>,
    /// `[llm_compute]`, when the file has one.
    pub llm_compute: Option<crate::llm::Engine>,
    /// Keys Spin knows that this host does not implement.
    pub unsupported_keys: Vec<String>,
}

/// One `[key_value_store.<label>]`.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyValueStoreConfig {
    /// `type = "spin"`: SQLite at `path` (as written in the file), or in memory.
    Spin { path: Option<PathBuf> },
    /// `type = "redis"`.
    Redis { url: String },
    /// A type Spin has that this host does not (`azure_cosmos`, `aws_dynamo`).
    Unsupported { kind: String },
}

/// One `[sqlite_database.<label>]`.
#[derive(Debug, Clone, PartialEq)]
pub enum SqliteDatabaseConfig {
    /// `type = "spin"`: a local file at `path` (as written), or in memory.
    Spin {
        path: Option<PathBuf>,
        allow_attach_file: bool,
    },
    /// `type = "libsql"`: a remote libSQL (Turso) database.
    Libsql { url: String, token: String },
}

/// One `[[variables_provider]]`.
#[derive(Debug, Clone, PartialEq)]
pub enum VariablesProviderConfig {
    /// `type = "env"`: `<prefix>_<NAME>` (prefix `SPIN_VARIABLE` by default),
    /// then the `dotenv_path` file if given.
    Env {
        prefix: Option<String>,
        dotenv_path: Option<PathBuf>,
    },
    /// `type = "static"`: fixed `values`.
    Static { values: BTreeMap<String, String> },
    /// `vault`, `azure_key_vault`: not implemented here.
    Unsupported { kind: String },
}

/// Where a resolved key-value store lives.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyValueBackend {
    /// A SQLite file (absolute path) or, for `None`, memory.
    Sqlite(Option<PathBuf>),
    /// A Redis server.
    Redis(String),
}

/// Where a resolved SQLite database lives.
#[derive(Debug, Clone, PartialEq)]
pub enum SqliteBackend {
    /// A local file, or memory.
    Local(SqliteLocation),
    /// A libSQL server: `url` (`http://` or `https://`) and its auth token.
    Libsql { url: String, token: String },
}

/// A local SQLite database.
#[derive(Debug, Clone, PartialEq)]
pub struct SqliteLocation {
    /// Absolute path, or `None` for a fresh in-memory database per open.
    pub path: Option<PathBuf>,
    pub allow_attach_file: bool,
}

#[derive(Deserialize)]
struct Typed {
    #[serde(rename = "type")]
    kind: String,
    #[serde(flatten)]
    config: toml::Table,
}

#[derive(Deserialize)]
struct SpinKeyValue {
    path: Option<PathBuf>,
}

#[derive(Deserialize)]
struct RedisKeyValue {
    url: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InProcDatabase {
    path: Option<PathBuf>,
    #[serde(default)]
    allow_attach_file: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LibSqlDatabase {
    url: String,
    token: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
enum ProviderToml {
    AzureKeyVault(serde::de::IgnoredAny),
    Static(StaticProvider),
    Vault(serde::de::IgnoredAny),
    Env(EnvProvider),
}

#[derive(Deserialize)]
struct StaticProvider {
    values: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EnvProvider {
    #[serde(default)]
    prefix: Option<String>,
    #[serde(default)]
    dotenv_path: Option<PathBuf>,
}

/// Warns about fields Spin ignores (its key-value configs do not deny unknown
/// fields): a misspelt `path` silently gives an in-memory store under Spin too.
fn warn_ignored(section: &str, table: &toml::Table, known: &[&str]) {
    for key in table.keys().filter(|k| !known.contains(&k.as_str())) {
        eprintln!("warning: runtime config [{section}]: `{key}` is ignored (by Spin too)");
    }
}

impl RuntimeConfig {
    /// Reads and parses a runtime config file.
    pub fn load(path: &Path) -> Result<RuntimeConfig> {
        let path = std::path::absolute(path)
            .with_context(|| format!("bad runtime config path {}", path.display()))?;
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!("failed to read runtime config file '{}'", path.display())
        })?;
        RuntimeConfig::parse(&text, Some(&path))
    }

    /// Parses runtime config TOML; `file` is where it came from (if anywhere).
    pub fn parse(text: &str, file: Option<&Path>) -> Result<RuntimeConfig> {
        let shown = file
            .map(|f| f.display().to_string())
            .unwrap_or_else(|| "<runtime config>".into());
        let table: toml::Table = toml::from_str(text)
            .with_context(|| format!("failed to parse runtime config file '{shown}' as toml"))?;
        RuntimeConfig::from_table(&table, file)
            .with_context(|| format!("invalid runtime config file '{shown}'"))
    }

    fn from_table(table: &toml::Table, file: Option<&Path>) -> Result<RuntimeConfig> {
        let mut config = RuntimeConfig {
            file: file.map(Path::to_path_buf),
            ..Default::default()
        };
        let mut unused: Vec<&str> = Vec::new();
        // Spin reads `variables_provider`, and `config_provider` only when the
        // former is absent; an unread key is an error.
        let providers_key = if table.contains_key("variables_provider") {
            "variables_provider"
        } else {
            "config_provider"
        };
        for (key, value) in table {
            match key.as_str() {
                "key_value_store" => config.key_value_stores = parse_key_value_stores(value)?,
                "sqlite_database" => config.sqlite_databases = parse_sqlite_databases(value)?,
                k if k == providers_key => {
                    config.variables_providers = parse_providers(value)
                        .with_context(|| format!("invalid [[{k}]]"))?
                }
                "state_dir" => config.state_dir = Some(string_value(key, value)?),
                "log_dir" => config.log_dir = Some(string_value(key, value)?),
                "llm_compute" => config.llm_compute = Some(crate::llm::parse_compute(value).context("invalid [llm_compute]")?),
                k if UNSUPPORTED_KEYS.contains(&k) => config.unsupported_keys.push(k.to_string()),
                other => unused.push(other),
            }
        }
        if !unused.is_empty() {
            bail!("unused runtime config key(s): {}", unused.join(", "));
        }
        Ok(config)
    }

    /// Refuses what this host cannot do, each with a reason. Called by
    /// [`crate::Host::start`]; a config that passes [`RuntimeConfig::parse`] is
    /// one Spin accepts too.
    pub fn ensure_supported(&self) -> Result<()> {
        let mut problems = Vec::new();
        for (label, store) in &self.key_value_stores {
            match store {
                KeyValueStoreConfig::Unsupported { kind } => problems.push(format!(
                    "key_value_store.{label}: type \"{kind}\" is not supported by this test host; use spin up"
                )),
                KeyValueStoreConfig::Redis { url } if !url.starts_with("redis://") => {
                    problems.push(format!(
                        "key_value_store.{label}: only redis:// URLs are supported by this test host (no TLS or unix sockets); use spin up for {}",
                        url.split(':').next().unwrap_or("")
                    ))
                }
                _ => {}
            }
        }
        for provider in &self.variables_providers {
            if let VariablesProviderConfig::Unsupported { kind } = provider {
                problems.push(format!(
                    "variables provider type \"{kind}\" is not supported by this test host; use spin up"
                ));
            }
        }
        for key in &self.unsupported_keys {
            problems.push(format!(
                "`{key}` is not supported by this test host; use spin up"
            ));
        }
        if self.state_dir.as_deref() == Some("") {
            problems.push(
                "state_dir = \"\" (in-memory default stores) is not supported by this test host; use spin up"
                    .to_string(),
            );
        }
        match problems.len() {
            0 => Ok(()),
            1 => Err(anyhow!("{}", problems[0])),
            _ => Err(anyhow!(
                "the runtime config uses what this host cannot do:\n- {}",
                problems.join("\n- ")
            )),
        }
    }

    /// The runtime config file's directory, which anchors relative `spin`
    /// key-value store paths.
    pub fn base_dir(&self) -> Option<&Path> {
        self.file.as_deref().and_then(Path::parent)
    }

    /// The `state_dir` the file sets, made absolute (relative to the current
    /// directory, as in Spin); `None` when it sets none (or sets it empty).
    pub fn state_dir(&self) -> Result<Option<PathBuf>> {
        match self.state_dir.as_deref() {
            None | Some("") => Ok(None),
            Some(dir) => Ok(Some(std::path::absolute(dir)?)),
        }
    }

    /// Every key-value store label and its backend: the file's stores plus
    /// `default` (in `state_dir`) unless the file defines it.
    pub fn key_value_backends(&self, state_dir: &Path) -> Result<BTreeMap<String, KeyValueBackend>> {
        let mut out = BTreeMap::new();
        for (label, store) in &self.key_value_stores {
            let backend = match store {
                // Spin: `path` joined to the runtime config file's directory
                // (or taken as it is without a file); no `path`: in memory.
                KeyValueStoreConfig::Spin { path } => KeyValueBackend::Sqlite(match path {
                    None => None,
                    Some(p) => Some(std::path::absolute(match self.base_dir() {
                        Some(base) => base.join(p),
                        None => p.clone(),
                    })?),
                }),
                KeyValueStoreConfig::Redis { url } => KeyValueBackend::Redis(url.clone()),
                KeyValueStoreConfig::Unsupported { kind } => {
                    bail!("key_value_store.{label}: type \"{kind}\" is not supported by this test host; use spin up")
                }
            };
            out.insert(label.clone(), backend);
        }
        out.entry(DEFAULT_LABEL.to_string()).or_insert_with(|| {
            KeyValueBackend::Sqlite(Some(state_dir.join(DEFAULT_KEY_VALUE_FILE)))
        });
        Ok(out)
    }

    /// Every SQLite database label and where it lives: the file's databases
    /// plus `default` (in `state_dir`) unless the file defines it.
    pub fn sqlite_backends(&self, state_dir: &Path) -> Result<BTreeMap<String, SqliteBackend>> {
        let mut out = BTreeMap::new();
        for (label, db) in &self.sqlite_databases {
            let location = match db {
                // Spin 4.0.2 resolves these against the current directory, not
                // the runtime config file's (unlike key-value stores).
                SqliteDatabaseConfig::Spin {
                    path,
                    allow_attach_file,
                } => SqliteBackend::Local(SqliteLocation {
                    path: path.as_ref().map(std::path::absolute).transpose()?,
                    allow_attach_file: *allow_attach_file,
                }),
                SqliteDatabaseConfig::Libsql { url, token } => SqliteBackend::Libsql {
                    url: url.clone(),
                    token: token.clone(),
                },
            };
            out.insert(label.clone(), location);
        }
        out.entry(DEFAULT_LABEL.to_string())
            .or_insert_with(|| SqliteBackend::Local(SqliteLocation {
                path: Some(state_dir.join(DEFAULT_SQLITE_FILE)),
                allow_attach_file: false,
            }));
        Ok(out)
    }

    /// `[key_value_store.<label>: <type>], ...` as Spin summarises the file at start-up.
    pub fn summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        for (label, store) in &self.key_value_stores {
            let kind = match store {
                KeyValueStoreConfig::Spin { .. } => "spin",
                KeyValueStoreConfig::Redis { .. } => "redis",
                KeyValueStoreConfig::Unsupported { kind } => kind,
            };
            parts.push(format!("[key_value_store.{label}: {kind}]"));
        }
        for (label, db) in &self.sqlite_databases {
            let kind = match db {
                SqliteDatabaseConfig::Spin { .. } => "spin",
                SqliteDatabaseConfig::Libsql { .. } => "libsql",
            };
            parts.push(format!("[sqlite_database.{label}: {kind}]"));
        }
        (!parts.is_empty()).then(|| parts.join(", "))
    }
}

fn string_value(key: &str, value: &toml::Value) -> Result<String> {
    value
        .as_str()
        .map(str::to_string)
        .with_context(|| format!("`{key}` must be a string"))
}

fn typed_tables(section: &str, value: &toml::Value) -> Result<BTreeMap<String, Typed>> {
    let table = value
        .as_table()
        .with_context(|| format!("[{section}] must be a table of [{section}.<label>] tables"))?;
    table
        .iter()
        .map(|(label, v)| {
            let typed: Typed = v
                .clone()
                .try_into()
                .with_context(|| format!("[{section}.{label}] needs a `type`"))?;
            Ok((label.clone(), typed))
        })
        .collect()
}

fn parse_key_value_stores(value: &toml::Value) -> Result<BTreeMap<String, KeyValueStoreConfig>> {
    let mut out = BTreeMap::new();
    for (label, Typed { kind, config }) in typed_tables("key_value_store", value)? {
        let section = format!("key_value_store.{label}");
        let store = (|| -> Result<KeyValueStoreConfig> {
            Ok(match kind.as_str() {
                "spin" => {
                    warn_ignored(&section, &config, &["path"]);
                    let c: SpinKeyValue = toml::Value::Table(config)
                        .try_into()
                        .context("could not parse key-value runtime config")?;
                    KeyValueStoreConfig::Spin { path: c.path }
                }
                "redis" => {
                    warn_ignored(&section, &config, &["url"]);
                    let c: RedisKeyValue = toml::Value::Table(config)
                        .try_into()
                        .context("could not parse key-value runtime config")?;
                    if redis::parse_redis_url(&c.url).is_none() {
                        bail!("could not make key-value store from runtime config: Invalid Redis URL");
                    }
                    KeyValueStoreConfig::Redis { url: c.url }
                }
                "azure_cosmos" | "aws_dynamo" => KeyValueStoreConfig::Unsupported { kind },
                other => bail!("the store type '{other}' was not registered with the config resolver"),
            })
        })()
        .with_context(|| format!("could not configure key-value store with label '{label}'"))?;
        out.insert(label, store);
    }
    Ok(out)
}

fn parse_sqlite_databases(value: &toml::Value) -> Result<BTreeMap<String, SqliteDatabaseConfig>> {
    let mut out = BTreeMap::new();
    for (label, Typed { kind, config }) in typed_tables("sqlite_database", value)? {
        let db = (|| -> Result<SqliteDatabaseConfig> {
            Ok(match kind.as_str() {
                "spin" => {
                    let c: InProcDatabase = toml::Value::Table(config).try_into()?;
                    SqliteDatabaseConfig::Spin {
                        path: c.path,
                        allow_attach_file: c.allow_attach_file,
                    }
                }
                "libsql" => {
                    let c: LibSqlDatabase = toml::Value::Table(config).try_into()?;
                    if !(c.url.starts_with("https://") || c.url.starts_with("http://")) {
                        return Err(anyhow!("URL does not start with 'https://' or 'http://'. Spin currently only supports talking to libSQL databases over HTTP(S)"))
                            .with_context(|| format!("unexpected libSQL URL '{}' in runtime config file ", c.url));
                    }
                    SqliteDatabaseConfig::Libsql {
                        url: c.url,
                        token: c.token,
                    }
                }
                other => bail!("Unknown database kind: {other}"),
            })
        })()
        .with_context(|| format!("invalid [sqlite_database.{label}]"))?;
        out.insert(label, db);
    }
    Ok(out)
}

fn parse_providers(value: &toml::Value) -> Result<Vec<VariablesProviderConfig>> {
    let providers: Vec<ProviderToml> = value.clone().try_into()?;
    Ok(providers
        .into_iter()
        .map(|p| match p {
            ProviderToml::Env(e) => VariablesProviderConfig::Env {
                prefix: e.prefix,
                dotenv_path: e.dotenv_path,
            },
            ProviderToml::Static(s) => VariablesProviderConfig::Static { values: s.values },
            ProviderToml::Vault(_) => VariablesProviderConfig::Unsupported {
                kind: "vault".into(),
            },
            ProviderToml::AzureKeyVault(_) => VariablesProviderConfig::Unsupported {
                kind: "azure_key_vault".into(),
            },
        })
        .collect())
}

/// The variable providers of a runtime config, ready for the resolver (dotenv
/// files read now; a missing file is empty, as in Spin).
pub fn variable_providers(config: &RuntimeConfig) -> Result<Vec<crate::variables::Provider>> {
    use crate::variables::Provider;
    config
        .variables_providers
        .iter()
        .map(|p| match p {
            VariablesProviderConfig::Env {
                prefix,
                dotenv_path,
            } => Ok(Provider::Env {
                prefix: prefix.clone().unwrap_or_else(|| "SPIN_VARIABLE".into()),
                dotenv: dotenv_path
                    .as_deref()
                    .map(crate::variables::load_dotenv)
                    .unwrap_or_default(),
            }),
            VariablesProviderConfig::Static { values } => Ok(Provider::Static(
                values.iter().map(|(k, v)| (k.clone(), v.clone())).collect::<HashMap<_, _>>(),
            )),
            VariablesProviderConfig::Unsupported { kind } => {
                bail!("variables provider type \"{kind}\" is not supported by this test host; use spin up")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RuntimeConfig> {
        RuntimeConfig::parse(text, Some(Path::new("/etc/app/runtime-config.toml")))
    }

    fn err(text: &str) -> String {
        format!("{:#}", parse(text).unwrap_err())
    }

    #[test]
    fn empty_file_gives_only_the_defaults() {
        let c = parse("").unwrap();
        assert_eq!(c, RuntimeConfig { file: c.file.clone(), ..Default::default() });
        c.ensure_supported().unwrap();
        let state = Path::new("/state");
        assert_eq!(
            c.key_value_backends(state).unwrap(),
            BTreeMap::from([("default".to_string(), KeyValueBackend::Sqlite(Some(state.join("sqlite_key_value.db"))))])
        );
        assert_eq!(
            c.sqlite_backends(state).unwrap(),
            BTreeMap::from([(
                "default".to_string(),
                SqliteBackend::Local(SqliteLocation { path: Some(state.join("sqlite_db.db")), allow_attach_file: false })
            )])
        );
        assert_eq!(c.summary(), None);
    }

    #[test]
    fn key_value_stores_resolve_like_spin() {
        let c = parse(
            r#"
[key_value_store.default]
type = "redis"
url = "redis://127.0.0.1:6379/2"

[key_value_store.relative]
type = "spin"
path = "data/kv.db"

[key_value_store.absolute]
type = "spin"
path = "/var/lib/kv.db"

[key_value_store.scratch]
type = "spin"
"#,
        )
        .unwrap();
        c.ensure_supported().unwrap();
        let backends = c.key_value_backends(Path::new("/state")).unwrap();
        assert_eq!(backends["default"], KeyValueBackend::Redis("redis://127.0.0.1:6379/2".into()));
        // Relative to the runtime config file's directory.
        assert_eq!(backends["relative"], KeyValueBackend::Sqlite(Some("/etc/app/data/kv.db".into())));
        assert_eq!(backends["absolute"], KeyValueBackend::Sqlite(Some("/var/lib/kv.db".into())));
        assert_eq!(backends["scratch"], KeyValueBackend::Sqlite(None), "no path: in memory");
        assert_eq!(backends.len(), 4);
        assert_eq!(
            c.summary().unwrap(),
            "[key_value_store.absolute: spin], [key_value_store.default: redis], [key_value_store.relative: spin], [key_value_store.scratch: spin]"
        );
    }

    #[test]
    fn sqlite_databases_resolve_like_spin() {
        let c = parse(
            r#"
[sqlite_database.default]
type = "spin"
path = "/data/app.db"

[sqlite_database.reports]
type = "spin"
path = "reports.db"
allow_attach_file = true

[sqlite_database.scratch]
type = "spin"
"#,
        )
        .unwrap();
        c.ensure_supported().unwrap();
        let dbs = c.sqlite_backends(Path::new("/state")).unwrap();
        let local = |location| SqliteBackend::Local(location);
        assert_eq!(dbs["default"], local(SqliteLocation { path: Some("/data/app.db".into()), allow_attach_file: false }));
        // Relative to the current directory (Spin 4.0.2), not to the file's.
        assert_eq!(
            dbs["reports"],
            local(SqliteLocation { path: Some(std::env::current_dir().unwrap().join("reports.db")), allow_attach_file: true })
        );
        assert_eq!(dbs["scratch"], local(SqliteLocation { path: None, allow_attach_file: false }));
    }

    #[test]
    fn libsql_databases_resolve_like_spin() {
        let c = parse(
            "[sqlite_database.default]\ntype = \"libsql\"\nurl = \"https://db-org.turso.io\"\ntoken = \"${TOKEN}\"\n",
        )
        .unwrap();
        assert_eq!(
            c.sqlite_databases["default"],
            SqliteDatabaseConfig::Libsql { url: "https://db-org.turso.io".into(), token: "${TOKEN}".into() }
        );
        c.ensure_supported().unwrap();
        assert_eq!(
            c.sqlite_backends(Path::new("/s")).unwrap()["default"],
            SqliteBackend::Libsql { url: "https://db-org.turso.io".into(), token: "${TOKEN}".into() }
        );
        assert_eq!(c.summary().unwrap(), "[sqlite_database.default: libsql]");
        assert!(parse("[sqlite_database.default]\ntype = \"libsql\"\nurl = \"http://127.0.0.1:8080\"\ntoken = \"t\"\n").is_ok());
        // Spin's checks: an http(s) URL, both fields, nothing else.
        assert!(err("[sqlite_database.default]\ntype = \"libsql\"\nurl = \"libsql://x\"\ntoken = \"t\"\n")
            .contains("URL does not start with 'https://' or 'http://'"));
        assert!(err("[sqlite_database.default]\ntype = \"libsql\"\nurl = \"https://x\"\n").contains("token"));
        assert!(err("[sqlite_database.default]\ntype = \"libsql\"\nurl = \"https://x\"\ntoken = \"t\"\nextra = 1\n")
            .contains("extra"));
    }

    #[test]
    fn spin_errors_for_bad_files() {
        assert_eq!(err("baz = \"/baz\""), "invalid runtime config file '/etc/app/runtime-config.toml': unused runtime config key(s): baz");
        assert!(err("[key_value_store.x]\ntype = \"memcached\"\n")
            .contains("could not configure key-value store with label 'x': the store type 'memcached' was not registered"));
        assert!(err("[key_value_store.x]\ntype = \"redis\"\n").contains("url"));
        assert!(err("[key_value_store.x]\ntype = \"redis\"\nurl = \"http://nope\"\n").contains("Invalid Redis URL"));
        assert!(err("[key_value_store.x]\npath = \"a.db\"\n").contains("needs a `type`"));
        assert!(err("[sqlite_database.x]\ntype = \"postgres\"\n").contains("Unknown database kind: postgres"));
        assert!(err("[sqlite_database.x]\ntype = \"spin\"\npth = \"a.db\"\n").contains("pth"));
        assert!(err("[[variables_provider]]\ntype = \"consul\"\n").contains("consul"));
        assert!(err("[[variables_provider]]\ntype = \"env\"\nprefx = \"A\"\n").contains("prefx"));
        assert!(err("key_value_store = 3").contains("table"));
        assert!(err("not toml [").contains("as toml"));
        // Both provider keys: Spin reads only variables_provider.
        assert!(err("[[variables_provider]]\ntype = \"env\"\n[[config_provider]]\ntype = \"env\"\n")
            .contains("unused runtime config key(s): config_provider"));
    }

    #[test]
    fn providers_in_file_order() {
        let c = parse(
            r#"
[[config_provider]]
type = "env"
prefix = "IRS"
dotenv_path = "deploy.env"

[[config_provider]]
type = "static"
values = { region = "eu" }
"#,
        )
        .unwrap();
        assert_eq!(
            c.variables_providers,
            vec![
                VariablesProviderConfig::Env { prefix: Some("IRS".into()), dotenv_path: Some("deploy.env".into()) },
                VariablesProviderConfig::Static { values: BTreeMap::from([("region".into(), "eu".into())]) },
            ]
        );
        c.ensure_supported().unwrap();
        let vault = parse("[[variables_provider]]\ntype = \"vault\"\nurl = \"https://v\"\ntoken = \"t\"\nmount = \"m\"\n").unwrap();
        assert!(format!("{:#}", vault.ensure_supported().unwrap_err()).contains("\"vault\" is not supported"));
    }

    #[test]
    fn known_but_unsupported_keys_fail_at_start_only() {
        let c = parse(
            "max_instance_memory = 1000000\nstate_dir = \"data\"\nlog_dir = \"logs\"\n[[client_tls]]\ncomponent_ids = [\"x\"]\n[key_value_store.c]\ntype = \"azure_cosmos\"\nkey = \"k\"\n",
        )
        .unwrap();
        assert_eq!(c.state_dir().unwrap(), Some(std::env::current_dir().unwrap().join("data")));
        let e = format!("{:#}", c.ensure_supported().unwrap_err());
        for needle in ["client_tls", "max_instance_memory", "azure_cosmos"] {
            assert!(e.contains(needle), "{e}");
        }
        let llm = parse("[llm_compute]\ntype = \"remote_http\"\nurl = \"http://127.0.0.1:9\"\nauth_token = \"t\"\napi_type = \"open_ai\"\n").unwrap();
        assert!(matches!(llm.llm_compute, Some(crate::llm::Engine::RemoteHttp { .. })));
        llm.ensure_supported().unwrap();
        assert!(parse("[llm_compute]\ntype = \"remote_http\"\n").is_err(), "Spin needs url and auth_token");
        let tls = parse("[key_value_store.default]\ntype = \"redis\"\nurl = \"rediss://cache.example:6380\"\n").unwrap();
        assert!(format!("{:#}", tls.ensure_supported().unwrap_err()).contains("only redis:// URLs"));
        let unset = parse("state_dir = \"\"").unwrap();
        assert_eq!(unset.state_dir().unwrap(), None);
        assert!(unset.ensure_supported().is_err());
    }
}
