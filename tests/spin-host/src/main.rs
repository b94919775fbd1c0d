//! `spin-host up`: runs a Spin app like `spin up` (see the library docs).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use spin_host::runtime_config::RuntimeConfig;
use spin_host::{default_state_dir, Host, HostConfig};

const HELP: &str = "\
spin-host: a small Spin-compatible host (HTTP and cron triggers)

USAGE:
    spin-host up [OPTIONS]
    spin-host --help

OPTIONS (as `spin up`):
    -f, --from <PATH>           The application manifest (spin.toml) or the directory
                                that holds it [default: spin.toml]
        --listen <ADDRESS>      The address to listen on [default: 127.0.0.1:3000]
        --state-dir <DIR>       Where SQLite and key-value data live
                                [default: the runtime config's state_dir, else
                                .spin next to the manifest]
        --log-dir <DIR>         Where each component's stdout and stderr are logged
                                (<component>_stdout.txt, _stderr.txt; empty: nowhere
                                but stderr) [default: the runtime config's log_dir,
                                else <state dir>/logs]; output also goes to stderr
        --runtime-config-file <FILE>
                                Spin's runtime config: key-value stores (`spin`,
                                `redis`), SQLite databases (`spin`), variables
                                providers (`env`, `static`); relative `spin`
                                key-value paths are relative to the file
        --variable <NAME=VALUE> Set an application variable (repeatable; wins over
                                SPIN_VARIABLE_<NAME> environment variables)
        --sqlite <SQL|@FILE>    Run SQL against the default database before serving
                                (repeatable)
        --no-cron               Do not schedule [[trigger.cron]] components
    -c, --component-id <ID>     Run only this component (repeatable; as `spin up -c`)
    -h, --help                  Print this help

ENVIRONMENT:
    SPIN_VARIABLE_<NAME>        Value of application variable <name>
    SPIN_HOST_DISABLE_CACHE=1   Do not use wasmtime's on-disk compilation cache
    SPIN_HOST_CACHE_DIR=DIR     Where that cache lives (default: the repository's target/spin-host-cache)
    SPIN_HOST_PERFMAP=1         Write /tmp/perf-<pid>.map so `perf report` names the guest's functions
";

struct Args {
    manifest: PathBuf,
    listen: SocketAddr,
    state_dir: Option<PathBuf>,
    log_dir: Option<PathBuf>,
    runtime_config_file: Option<PathBuf>,
    variables: HashMap<String, String>,
    sqlite: Vec<String>,
    cron: bool,
    components: Vec<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Option<Args>> {
    match args.next().as_deref() {
        Some("up") => {}
        Some("-h" | "--help" | "help") | None => return Ok(None),
        Some(other) => bail!("unknown command {other:?} (try `spin-host --help`)"),
    }
    let mut out = Args {
        manifest: PathBuf::from("spin.toml"),
        listen: "127.0.0.1:3000".parse()?,
        state_dir: None,
        log_dir: None,
        runtime_config_file: None,
        variables: HashMap::new(),
        sqlite: Vec::new(),
        cron: true,
        components: Vec::new(),
    };
    while let Some(arg) = args.next() {
        // Accept both `--flag value` and `--flag=value`.
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String> {
            match inline.clone() {
                Some(v) => Ok(v),
                None => args.next().with_context(|| format!("{name} needs a value")),
            }
        };
        match flag.as_str() {
            "-f" | "--from" | "--file" => out.manifest = PathBuf::from(value(&flag)?),
            "--listen" => {
                let v = value(&flag)?;
                out.listen = v
                    .parse()
                    .with_context(|| format!("invalid --listen address {v:?}"))?;
            }
            "--state-dir" => out.state_dir = Some(PathBuf::from(value(&flag)?)),
            "--log-dir" => out.log_dir = Some(PathBuf::from(value(&flag)?)),
            "--runtime-config-file" => out.runtime_config_file = Some(PathBuf::from(value(&flag)?)),
            "--variable" => {
                let v = value(&flag)?;
                let (k, val) = v
                    .split_once('=')
                    .with_context(|| format!("--variable expects NAME=VALUE, got {v:?}"))?;
                out.variables.insert(k.to_string(), val.to_string());
            }
            "--sqlite" => out.sqlite.push(value(&flag)?),
            "--no-cron" => out.cron = false,
            "-c" | "--component-id" => out.components.push(value(&flag)?),
            "-h" | "--help" => return Ok(None),
            other => bail!("unknown option {other:?} (try `spin-host --help`)"),
        }
    }
    if out.manifest.is_dir() {
        out.manifest = out.manifest.join("spin.toml");
    }
    Ok(Some(out))
}

fn run() -> Result<()> {
    let Some(args) = parse_args(std::env::args().skip(1))? else {
        print!("{HELP}");
        return Ok(());
    };
    let runtime_config = match &args.runtime_config_file {
        Some(path) => RuntimeConfig::load(path)?,
        None => RuntimeConfig::default(),
    };
    runtime_config.ensure_supported()?;
    if let Some(summary) = runtime_config.summary() {
        let from = args
            .runtime_config_file
            .as_deref()
            .map(|p| format!(" from \"{}\"", p.display()))
            .unwrap_or_default();
        eprintln!("Using runtime config {summary}{from}");
    }
    // As in Spin: --state-dir, else the runtime config's state_dir, else .spin.
    let state_dir = match (&args.state_dir, runtime_config.state_dir()?) {
        (Some(dir), _) => dir.clone(),
        (None, Some(dir)) => dir,
        (None, None) => default_state_dir(&args.manifest),
    };

    if !args.sqlite.is_empty() {
        // Like `spin up --sqlite`: before serving, each statement on a fresh
        // connection of the default database; `@file` runs the file as a batch.
        std::fs::create_dir_all(&state_dir)
            .with_context(|| format!("cannot create state dir {}", state_dir.display()))?;
        let backend = runtime_config
            .sqlite_backends(&std::path::absolute(&state_dir)?)?
            .remove("default")
            .context("no default database")?;
        let db = spin_host::sqlite::Database::create(&backend)?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        for stmt in &args.sqlite {
            let result = match stmt.strip_prefix('@') {
                Some(file) => {
                    let sql = std::fs::read_to_string(file)
                        .with_context(|| format!("cannot read SQL file {file}"))?;
                    rt.block_on(db.open().execute_batch(sql))
                }
                None => rt.block_on(db.open().execute(stmt.clone(), Vec::new())).map(drop),
            };
            result
                .map_err(|e| anyhow::anyhow!("{e:?}"))
                .with_context(|| format!("--sqlite {stmt}"))?;
        }
    }

    let host = Host::start(HostConfig {
        manifest: args.manifest,
        listen: args.listen,
        state_dir,
        variables: args.variables,
        enable_cron: args.cron,
        components: args.components,
        runtime_config_file: args.runtime_config_file,
        log_dir: args.log_dir,
    })?;

    let base = host.base_url();
    println!("\nServing {base}");
    println!("Available Routes:");
    for (component, route) in host.routes() {
        println!("  {component}: {base}{route}");
    }

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            r = tokio::signal::ctrl_c() => r?,
            _ = term.recv() => {}
        }
        anyhow::Ok(())
    })?;
    eprintln!("Shutting down...");
    host.stop();
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Option<Args>> {
        parse_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn cli_flags() {
        assert!(parse(&[]).unwrap().is_none());
        assert!(parse(&["--help"]).unwrap().is_none());
        let a = parse(&["up"]).unwrap().unwrap();
        assert_eq!(a.manifest, PathBuf::from("spin.toml"));
        assert_eq!(a.listen, "127.0.0.1:3000".parse().unwrap());
        assert!(a.cron);
        let a = parse(&[
            "up",
            "-f",
            "app/spin.toml",
            "--listen=0.0.0.0:8080",
            "--state-dir",
            "/tmp/s",
            "--runtime-config-file=deploy/runtime-config.local.toml",
            "--variable",
            "a_b=c=d",
            "--sqlite",
            "@x.sql",
            "--no-cron",
            "-c",
            "tenants",
            "--component-id=projects",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(a.manifest, PathBuf::from("app/spin.toml"));
        assert_eq!(a.listen.port(), 8080);
        assert_eq!(a.state_dir, Some(PathBuf::from("/tmp/s")));
        assert_eq!(
            a.runtime_config_file,
            Some(PathBuf::from("deploy/runtime-config.local.toml"))
        );
        assert_eq!(a.variables["a_b"], "c=d");
        assert_eq!(a.sqlite, vec!["@x.sql"]);
        assert!(!a.cron);
        assert_eq!(a.components, vec!["tenants", "projects"]);
        assert!(parse(&["up", "--bogus"]).is_err());
        assert!(parse(&["down"]).is_err());
        assert!(parse(&["up", "--listen"]).is_err());
    }
}
