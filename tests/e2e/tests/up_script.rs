//! `scripts/up.sh` under the Spin CLI (a stand-in `spin`, on PATH or named by
//! `SPIN`, records how it is called): with the cron plugin it serves the whole
//! app; without it, every HTTP component and says how maintenance runs then
//! (docs/deploy.md).

use e2e::workspace_root;
use std::path::Path;
use std::process::Command;

/// How up.sh finds the stand-in.
#[derive(Clone, Copy, PartialEq)]
enum Found {
    OnPath,
    NamedBySpin,
}

/// Runs up.sh with a fake `spin` whose `plugins list --installed` prints `plugins`.
fn run_up(plugins: &str) -> (String, String) {
    run_up_with(plugins, Found::OnPath)
}

fn run_up_with(plugins: &str, found: Found) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("spin");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nif [ \"$1\" = plugins ]; then printf '%s\\n' '{plugins}'; exit 0; fi\n\
             if [ \"$1\" = --version ]; then echo 'spin 4.0.2 (stand-in)'; exit 0; fi\necho \"spin $*\" > \"{}\"\n",
            dir.path().join("called").display()
        ),
    )
    .unwrap();
    Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    let mut command = Command::new("bash");
    command.arg(workspace_root().join("scripts/up.sh")).arg("127.0.0.1:3999").arg(dir.path().join("state"));
    match found {
        Found::OnPath => {
            let path = format!("{}:{}", dir.path().display(), std::env::var("PATH").unwrap_or_default());
            command.env("PATH", path).env_remove("SPIN")
        }
        Found::NamedBySpin => command.env("SPIN", &fake),
    };
    let output = command.current_dir(workspace_root()).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let called = std::fs::read_to_string(Path::new(&dir.path().join("called"))).unwrap();
    (called.trim().to_string(), String::from_utf8_lossy(&output.stdout).into_owned())
}

#[test]
fn with_the_cron_plugin_the_whole_app_is_served() {
    let (called, printed) = run_up("trigger-cron 0.3.0 [installed]");
    assert!(called.starts_with("spin up --from spin.toml --listen 127.0.0.1:3999 --state-dir "), "{called}");
    assert!(!called.contains(" -c "), "{called}");
    assert!(printed.contains("X-Api-Key:"), "the dev partner key is printed: {printed}");
    assert!(printed.contains("Serving with spin 4.0.2 (stand-in)"), "{printed}");
}

#[test]
fn spin_names_the_cli_to_serve_with() {
    let (called, printed) = run_up_with("trigger-cron 0.3.0 [installed]", Found::NamedBySpin);
    assert!(called.starts_with("spin up --from spin.toml --listen 127.0.0.1:3999 --state-dir "), "{called}");
    assert!(printed.contains("Serving with spin 4.0.2 (stand-in)"), "{printed}");
}

#[test]
fn without_the_cron_plugin_every_http_component_is_served() {
    let (called, printed) = run_up("");
    for component in ["tenants", "projects", "sessions", "interviews", "files", "webhooks", "operator", "fallback"] {
        assert!(called.contains(&format!("-c {component}")), "{component}: {called}");
    }
    assert!(!called.contains("-c maintenance"), "{called}");
    assert!(printed.contains("POST /v1/maintenance/run"), "{printed}");
}
