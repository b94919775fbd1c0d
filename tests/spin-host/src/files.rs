//! A component's `files` (spin.toml), mounted read-only as Spin 4.0.2 mounts
//! them: what the guest sees at which path. Spin's `spin up` copies every
//! file of a component into one temporary directory at start and preopens it
//! at `/` (`spin-loader`'s local loader, copy strategy):
//!
//! - `{ source = "dir", destination = "/d" }`: the directory's files under `/d`;
//! - `{ source = "file", destination = "/d/f" }`: the file at `/d/f`;
//! - `"path/file"` (the string form): the file at `/path/file`;
//! - `"path/dir"`: its files at `/path/dir/path/dir/...` (Spin 4.0.2 joins
//!   the directory's path twice; kept, so that a manifest behaves the same);
//! - `"glob/*.txt"`: the files it matches at their paths under `/`;
//!
//! paths relative to the manifest's directory, `exclude_files` globs
//! (relative to it too) leaving files out. Writes fail: the mounts are
//! read-only, as `spin up` makes them without `--allow-transient-write`.
//!
//! One difference, for speed: a directory placed with `source`/`destination`
//! (and no `exclude_files`) is preopened where it lies at its destination,
//! as `spin up --direct-mounts` does, instead of being copied on every start
//! (a model's 91 MB); an empty directory stands in for it among the copies.
//! The guest finds the same files at the same paths and lists the same names.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use wasmtime_wasi::{FsPerms, WasiCtxBuilder};

/// One entry of a component's `files`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum FilesMount {
    /// `"path"` or `"glob/pattern"`: files at their own path under `/`.
    Pattern(String),
    /// `{ source = "host/dir-or-file", destination = "/guest/path" }`.
    Placement { source: String, destination: String },
}

/// The directories an instance of a component gets preopened.
#[derive(Debug, Default)]
pub struct Mounts {
    /// (host directory, guest path), read-only.
    dirs: Vec<(PathBuf, String)>,
    /// The copies (the guest's `/`), removed when the component is dropped.
    _copies: Option<tempfile::TempDir>,
}

impl Mounts {
    /// Resolves `files` against the manifest's directory, copying what is not
    /// a placed directory: a missing source or a bad entry fails the start, as
    /// in Spin.
    pub fn prepare(app_root: &Path, files: &[FilesMount], exclude_files: &[String]) -> Result<Mounts> {
        if files.is_empty() {
            return Ok(Mounts::default());
        }
        let excluded = exclude_files
            .iter()
            .map(|pattern| glob::Pattern::new(pattern).with_context(|| format!("invalid exclude_files glob pattern {pattern:?}")))
            .collect::<Result<Vec<_>>>()?;
        let copies = tempfile::Builder::new().prefix("spin-host-files").tempdir()?;
        // Spin preopens its copies at `/`; the placed directories come after,
        // longer prefixes that win under it.
        let mut dirs = vec![(copies.path().to_path_buf(), "/".to_string())];
        for mount in files {
            if let FilesMount::Placement { source, destination } = mount {
                let source = app_root.join(source);
                if source.is_dir() && excluded.is_empty() {
                    let destination = destination.trim_start_matches('/');
                    // An empty stand-in, so that listing the directory above
                    // shows it as in Spin.
                    std::fs::create_dir_all(copies.path().join(destination))?;
                    dirs.push((source, format!("/{destination}")));
                    continue;
                }
            }
            copy_mount(app_root, mount, copies.path(), &excluded)?;
        }
        Ok(Mounts { dirs, _copies: Some(copies) })
    }

    /// Preopens the mounts in an instance's WASI context, read-only.
    pub fn preopen(&self, wasi: &mut WasiCtxBuilder) -> Result<()> {
        for (host, guest) in &self.dirs {
            wasi.preopened_dir(host, guest, FsPerms::ReadOnly)
                .map_err(anyhow::Error::from)
                .with_context(|| format!("cannot mount {} at {guest}", host.display()))?;
        }
        Ok(())
    }
}

/// Copies what one entry mounts into `root` (the guest's `/`), as Spin's
/// local loader does.
fn copy_mount(app_root: &Path, mount: &FilesMount, root: &Path, excluded: &[glob::Pattern]) -> Result<()> {
    match mount {
        FilesMount::Placement { source, destination } => {
            let path = app_root.join(source);
            let dest = root.join(destination.trim_start_matches('/'));
            let meta = std::fs::metadata(&path).with_context(|| format!("File or directory {source:?} does not exist"))?;
            if meta.is_dir() {
                copy_glob(app_root, &path.join("**/*"), &path, &dest, excluded)
            } else {
                copy_file(&path, &dest)
            }
        }
        FilesMount::Pattern(pattern) => {
            if pattern == ".." || pattern.ends_with("/..") || pattern == "." || pattern.ends_with("/.") {
                bail!("A file pattern can't end in a parent or current directory path: {pattern:?}");
            }
            let path = app_root.join(pattern);
            if path.is_dir() {
                copy_glob(app_root, &path.join("**/*"), app_root, &root.join(pattern), excluded)
            } else if path.exists() {
                copy_file(&path, &root.join(pattern))
            } else if glob::Pattern::escape(pattern) != *pattern {
                copy_glob(app_root, &path, app_root, root, excluded)
            } else {
                bail!("{pattern:?} does not exist and doesn't appear to be a glob pattern")
            }
        }
    }
}

/// Copies each file `pattern` matches to `dest_root` joined with its path
/// below `prefix`, unless `excluded` matches its path below the app's root.
fn copy_glob(app_root: &Path, pattern: &Path, prefix: &Path, dest_root: &Path, excluded: &[glob::Pattern]) -> Result<()> {
    let pattern = pattern.to_str().with_context(|| format!("invalid (non-utf8) file pattern {pattern:?}"))?;
    std::fs::create_dir_all(dest_root)?;
    for path in glob::glob(pattern).with_context(|| format!("Failed to resolve glob pattern {pattern:?}"))? {
        let path = path?;
        if !path.is_file() {
            continue;
        }
        let Ok(in_app) = path.strip_prefix(app_root) else {
            bail!("{pattern} cannot be mapped because it is outside the application directory");
        };
        if excluded.iter().any(|exclude| exclude.matches_path(in_app)) {
            continue;
        }
        copy_file(&path, &dest_root.join(path.strip_prefix(prefix)?))?;
    }
    Ok(())
}

fn copy_file(source: &Path, dest: &Path) -> Result<()> {
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(source, dest).with_context(|| format!("cannot copy {} to the component's files", source.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Every file the guest can reach, as `guest path = contents`, sorted.
    fn guest_view(mounts: &Mounts) -> Vec<String> {
        let mut seen = Vec::new();
        for (host, guest) in &mounts.dirs {
            for path in glob::glob(host.join("**/*").to_str().unwrap()).unwrap() {
                let path = path.unwrap();
                if path.is_file() {
                    let inside = path.strip_prefix(host).unwrap().to_str().unwrap();
                    let guest = format!("{}/{inside}", guest.trim_end_matches('/'));
                    seen.push(format!("{guest} = {}", std::fs::read_to_string(&path).unwrap()));
                }
            }
        }
        seen.sort();
        seen
    }

    fn manifest_files(toml_text: &str) -> (Vec<FilesMount>, Vec<String>) {
        #[derive(Deserialize)]
        struct Component {
            files: Vec<FilesMount>,
            #[serde(default)]
            exclude_files: Vec<String>,
        }
        let component: Component = toml::from_str(toml_text).unwrap();
        (component.files, component.exclude_files)
    }

    #[test]
    fn mounts_place_files_where_spin_does() {
        let app = tempfile::tempdir().unwrap();
        let root = app.path();
        write(&root.join("model/config.json"), "config");
        write(&root.join("model/sub/vocab.txt"), "vocab");
        write(&root.join("static/a.txt"), "a");
        write(&root.join("static/b.css"), "b");
        write(&root.join("static/secret.txt"), "secret");
        write(&root.join("notes/one.md"), "one");
        write(&root.join("notes/deep/two.md"), "two");
        write(&root.join("data/x.bin"), "x");
        write(&root.join("readme.md"), "readme");
        // Each form, as Spin 4.0.2 placed them (checked under it with
        // tests/fixtures/bench-embed listing the guest's directories).
        let (files, exclude) = manifest_files(
            r#"files = [
                { source = "model", destination = "/model" },
                { source = "data/x.bin", destination = "/etc/x" },
                { source = "data", destination = "relative" },
                "static/*.txt",
                "readme.md",
                "notes",
            ]
            exclude_files = ["static/secret.txt"]"#,
        );
        let mounts = Mounts::prepare(root, &files, &exclude).unwrap();
        assert_eq!(
            guest_view(&mounts),
            [
                "/etc/x = x",
                "/model/config.json = config",
                "/model/sub/vocab.txt = vocab",
                "/notes/notes/deep/two.md = two",
                "/notes/notes/one.md = one",
                "/readme.md = readme",
                "/relative/x.bin = x",
                "/static/a.txt = a",
            ]
        );
        // With no exclusions a placed directory is served where it lies.
        let (files, _) = manifest_files(r#"files = [{ source = "model", destination = "/model" }]"#);
        let mounts = Mounts::prepare(root, &files, &[]).unwrap();
        assert_eq!(mounts.dirs[1..], [(root.join("model"), "/model".to_string())]);
        let copies: Vec<_> = glob::glob(mounts.dirs[0].0.join("**/*").to_str().unwrap()).unwrap().collect();
        assert_eq!(copies.len(), 1, "nothing copied, the directory's stand-in only: {copies:?}");
    }

    #[test]
    fn bad_mounts_fail_the_start() {
        let app = tempfile::tempdir().unwrap();
        for (entry, says) in [
            (r#"files = ["missing.txt"]"#, "does not exist"),
            (r#"files = [{ source = "missing", destination = "/m" }]"#, "does not exist"),
            (r#"files = ["static/.."]"#, "can't end in"),
        ] {
            let (files, exclude) = manifest_files(entry);
            let error = format!("{:#}", Mounts::prepare(app.path(), &files, &exclude).unwrap_err());
            assert!(error.contains(says), "{entry}: {error}");
        }
        assert!(toml::from_str::<toml::Table>("files = [{ source = 'a', destination = '/a', mode = 'rw' }]")
            .map(|table| FilesMount::deserialize(table["files"].as_array().unwrap()[0].clone()).is_err())
            .unwrap());
        // A glob that matches nothing mounts nothing, as in Spin.
        let (files, exclude) = manifest_files(r#"files = ["nothing/*.txt"]"#);
        assert!(guest_view(&Mounts::prepare(app.path(), &files, &exclude).unwrap()).is_empty());
    }
}
