//! Application variables, mirroring Spin's `spin-expressions` resolver.
//!
//! A component can only read the variables declared in its own
//! `[component.<id>.variables]` table; each value is a template such as
//! `"{{ partner_api_key }}"` over the application `[variables]`. An app variable's
//! value comes, highest priority first, from: overrides given to the host (the lib
//! API or `--variable`), the runtime config's `[[variables_provider]]`s in file
//! order, the environment variable `SPIN_VARIABLE_<NAME>`, a `.env` file in the
//! current directory (Spin's default env provider reads it too), then the
//! declared `default`. Values are looked up on every `get`, as Spin does.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::manifest::{Manifest, VariableDecl};

/// Errors with the same cases (and messages) as `fermyon:spin/variables.error`.
#[derive(Debug, Clone, PartialEq)]
pub enum VarError {
    InvalidName(String),
    Undefined(String),
    Provider(String),
    Other(String),
}

impl std::fmt::Display for VarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VarError::InvalidName(m) => write!(f, "invalid variable name: {m}"),
            VarError::Undefined(m) => write!(f, "undefined variable: {m}"),
            VarError::Provider(m) => write!(f, "provider error: {m}"),
            VarError::Other(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for VarError {}

/// Spin's variable name rules: lowercase ASCII letters, digits and single
/// underscores; starts with a letter, ends with a letter or digit.
pub fn validate_name(key: &str) -> Result<(), VarError> {
    let reason = if key.is_empty() {
        Some("must not be empty".to_string())
    } else if let Some(c) = key
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_'))
    {
        Some(format!("invalid character {c:?}. Variable names may contain only lower-case letters, numbers, and underscores."))
    } else if !key.as_bytes()[0].is_ascii_lowercase() {
        Some("must start with a lowercase ASCII letter".to_string())
    } else if !key.as_bytes()[key.len() - 1].is_ascii_alphanumeric() {
        Some("must end with a lowercase ASCII letter or digit".to_string())
    } else if key.contains("__") {
        Some("must not contain multiple consecutive underscores".to_string())
    } else {
        None
    };
    match reason {
        Some(reason) => Err(VarError::InvalidName(format!("{key:?}: {reason}"))),
        None => Ok(()),
    }
}

/// One piece of a template: literal text or a `{{ variable }}` reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Lit(String),
    Expr(String),
}

/// Parses `"text {{ name }} more"` the way Spin does (no escaping; an
/// unmatched `{{` is an error; the expression is trimmed).
pub fn parse_template(template: &str) -> Result<Vec<Part>> {
    let mut parts = Vec::new();
    let mut rest = template;
    while !rest.is_empty() {
        if let Some(expr_rest) = rest.strip_prefix("{{") {
            let Some((expr, after)) = expr_rest.split_once("}}") else {
                bail!("invalid variable template: unmatched '{{{{' in template {template:?}");
            };
            parts.push(Part::Expr(expr.trim().to_string()));
            rest = after;
        } else if let Some(idx) = rest.find("{{") {
            parts.push(Part::Lit(rest[..idx].to_string()));
            rest = &rest[idx..];
        } else {
            parts.push(Part::Lit(rest.to_string()));
            rest = "";
        }
    }
    Ok(parts)
}

/// A variables provider of the runtime config (see `runtime_config.rs`).
#[derive(Debug, Clone, PartialEq)]
pub enum Provider {
    /// `type = "env"`: `<prefix>_<NAME>` from the environment, then from the
    /// provider's dotenv file (same key).
    Env {
        prefix: String,
        dotenv: HashMap<String, String>,
    },
    /// `type = "static"`: fixed values by variable name.
    Static(HashMap<String, String>),
}

/// Where app variable values come from, besides the manifest defaults.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Highest priority: values given to the host directly.
    pub overrides: HashMap<String, String>,
    /// Next: the runtime config's providers, in order.
    pub providers: Vec<Provider>,
    /// Reads `SPIN_VARIABLE_<NAME>`; replaceable in tests.
    pub env: Option<fn(&str) -> Option<String>>,
    /// `KEY=value` pairs from a `.env` file (same key names as the environment).
    pub dotenv: HashMap<String, String>,
}

impl Sources {
    /// Overrides plus the process environment and `./.env`, like `spin up`.
    pub fn from_process(overrides: HashMap<String, String>) -> Sources {
        Sources {
            overrides,
            providers: Vec::new(),
            env: Some(|k| std::env::var(k).ok()),
            dotenv: load_dotenv(Path::new(".env")),
        }
    }
}

/// Resolves component variables for one application.
#[derive(Debug)]
pub struct Resolver {
    app_vars: BTreeMap<String, VariableDecl>,
    /// component id -> variable name -> parsed template
    components: HashMap<String, HashMap<String, Vec<Part>>>,
    sources: Sources,
}

impl Resolver {
    /// Builds the resolver and checks what Spin checks at startup: valid names,
    /// templates that refer only to declared app variables, and that every app
    /// variable (in particular each `required` one) has a value.
    pub fn new(manifest: &Manifest, sources: Sources) -> Result<Resolver> {
        for name in sources.overrides.keys() {
            if !manifest.variables.contains_key(name) {
                eprintln!(
                    "warning: variable {name:?} is given a value but not declared in [variables]"
                );
            }
        }
        let mut components = HashMap::new();
        for (id, c) in &manifest.component {
            let mut vars = HashMap::new();
            for (name, template) in &c.variables {
                validate_name(name)
                    .with_context(|| format!("component {id:?}: bad variable name"))?;
                let parts = parse_template(template)
                    .with_context(|| format!("component {id:?}, variable {name:?}"))?;
                for part in &parts {
                    if let Part::Expr(var) = part {
                        if !manifest.variables.contains_key(var) {
                            bail!("component {id:?}, variable {name:?}: invalid variable template: unknown variable {var:?}");
                        }
                    }
                }
                vars.insert(name.clone(), parts);
            }
            components.insert(id.clone(), vars);
        }
        let resolver = Resolver {
            app_vars: manifest.variables.clone(),
            components,
            sources,
        };
        for name in resolver.app_vars.keys() {
            resolver
                .app_value(name)
                .with_context(|| {
                    format!(
                        "failed to resolve variable {name:?}: set it with the environment variable SPIN_VARIABLE_{}",
                        name.to_ascii_uppercase()
                    )
                })?;
        }
        Ok(resolver)
    }

    /// Value of one app-level variable.
    pub fn app_value(&self, name: &str) -> Result<String, VarError> {
        let decl = self
            .app_vars
            .get(name)
            .ok_or_else(|| VarError::InvalidName(name.to_string()))?;
        if let Some(v) = self.sources.overrides.get(name) {
            return Ok(v.clone());
        }
        let upper = name.to_ascii_uppercase();
        for provider in &self.sources.providers {
            let found = match provider {
                Provider::Env { prefix, dotenv } => {
                    let key = format!("{prefix}_{upper}");
                    self.sources
                        .env
                        .and_then(|get| get(&key))
                        .or_else(|| dotenv.get(&key).cloned())
                }
                Provider::Static(values) => values.get(name).cloned(),
            };
            if let Some(v) = found {
                return Ok(v);
            }
        }
        let env_key = format!("SPIN_VARIABLE_{upper}");
        if let Some(v) = self.sources.env.and_then(|get| get(&env_key)) {
            return Ok(v);
        }
        if let Some(v) = self.sources.dotenv.get(&env_key) {
            return Ok(v.clone());
        }
        decl.default.clone().ok_or_else(|| {
            VarError::Provider(format!("no provider resolved required variable {name:?}"))
        })
    }

    /// `fermyon:spin/variables.get` for a component.
    pub fn get(&self, component: &str, name: &str) -> Result<String, VarError> {
        validate_name(name)?;
        let vars = self.components.get(component).ok_or_else(|| {
            VarError::Undefined(format!("no variable for component {component:?}"))
        })?;
        let parts = vars.get(name).ok_or_else(|| {
            VarError::Undefined(format!("no variable for {component:?}.{name:?}"))
        })?;
        let mut out = String::new();
        for part in parts {
            match part {
                Part::Lit(s) => out.push_str(s),
                Part::Expr(var) => out.push_str(&self.app_value(var)?),
            }
        }
        Ok(out)
    }
}

/// A small `.env` reader: `KEY=value` lines, `#` comments, optional `export `,
/// optional single or double quotes. A missing file is just empty.
pub fn load_dotenv(path: &Path) -> HashMap<String, String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    parse_dotenv(&text)
}

fn parse_dotenv(text: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let value = if value.len() >= 2
            && ((value.starts_with('"') && value.ends_with('"'))
                || (value.starts_with('\'') && value.ends_with('\'')))
        {
            &value[1..value.len() - 1]
        } else {
            // Unquoted values end at an inline comment.
            value.split(" #").next().unwrap_or("").trim_end()
        };
        out.insert(key.trim().to_string(), value.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        Manifest::parse(
            r#"
spin_manifest_version = 2
[variables]
partner_api_key = { required = true, secret = true }
log_level = { default = "info" }
region = { default = "eu" }
[component.a]
source = "a.wasm"
[component.a.variables]
api_key = "{{ partner_api_key }}"
mixed = "level={{log_level}}/{{ region }}!"
plain = "literal value"
"#,
        )
        .unwrap()
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn fake_env(k: &str) -> Option<String> {
        match k {
            "SPIN_VARIABLE_PARTNER_API_KEY" => Some("from-env".into()),
            "SPIN_VARIABLE_REGION" => Some("us".into()),
            _ => None,
        }
    }

    #[test]
    fn templates_parse_like_spin() {
        assert_eq!(parse_template("").unwrap(), vec![]);
        assert_eq!(parse_template("a").unwrap(), vec![Part::Lit("a".into())]);
        assert_eq!(
            parse_template("a-{{ x }}-b").unwrap(),
            vec![
                Part::Lit("a-".into()),
                Part::Expr("x".into()),
                Part::Lit("-b".into())
            ]
        );
        assert_eq!(
            parse_template("{{x}}{{ y }}").unwrap(),
            vec![Part::Expr("x".into()), Part::Expr("y".into())]
        );
        assert!(parse_template("{{ ok }} {{ unmatched").is_err());
    }

    #[test]
    fn names_are_validated_like_spin() {
        for ok in ["a", "abc", "a1b2c3", "a_1", "a_1_b_3"] {
            validate_name(ok).expect(ok);
        }
        for bad in ["", "aX", "1bc", "_x", "x.y", "x_", "a__b", "x-y"] {
            assert!(
                matches!(validate_name(bad), Err(VarError::InvalidName(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn precedence_override_env_dotenv_default() {
        let mut sources = Sources {
            overrides: HashMap::new(),
            env: Some(fake_env),
            dotenv: HashMap::from([
                ("SPIN_VARIABLE_LOG_LEVEL".to_string(), "debug".to_string()),
                ("SPIN_VARIABLE_REGION".to_string(), "ap".to_string()),
            ]),
            ..Default::default()
        };
        let r = Resolver::new(&manifest(), sources.clone()).unwrap();
        assert_eq!(r.get("a", "api_key").unwrap(), "from-env");
        // env beats .env, .env beats default
        assert_eq!(r.get("a", "mixed").unwrap(), "level=debug/us!");
        assert_eq!(r.get("a", "plain").unwrap(), "literal value");

        sources
            .overrides
            .insert("partner_api_key".into(), "override".into());
        sources.overrides.insert("region".into(), "xx".into());
        let r = Resolver::new(&manifest(), sources).unwrap();
        assert_eq!(r.get("a", "api_key").unwrap(), "override");
        assert_eq!(r.get("a", "mixed").unwrap(), "level=debug/xx!");

        // Only defaults.
        let sources = Sources {
            overrides: HashMap::from([("partner_api_key".to_string(), "k".to_string())]),
            env: Some(no_env),
            ..Default::default()
        };
        let r = Resolver::new(&manifest(), sources).unwrap();
        assert_eq!(r.get("a", "mixed").unwrap(), "level=info/eu!");
    }

    fn provider_env(k: &str) -> Option<String> {
        match k {
            "IRS_REGION" => Some("from-prefixed-env".into()),
            "SPIN_VARIABLE_REGION" => Some("from-default-env".into()),
            "SPIN_VARIABLE_LOG_LEVEL" => Some("warn".into()),
            _ => None,
        }
    }

    #[test]
    fn runtime_config_providers_come_before_the_default_env_provider() {
        let sources = Sources {
            overrides: HashMap::from([("partner_api_key".to_string(), "k".to_string())]),
            providers: vec![
                Provider::Static(HashMap::from([("log_level".to_string(), "static".to_string())])),
                Provider::Env {
                    prefix: "IRS".into(),
                    dotenv: HashMap::from([("IRS_LOG_LEVEL".to_string(), "from-dotenv".to_string())]),
                },
            ],
            env: Some(provider_env),
            dotenv: HashMap::new(),
        };
        let r = Resolver::new(&manifest(), sources.clone()).unwrap();
        // The first provider with a value wins; SPIN_VARIABLE_* comes after them.
        assert_eq!(r.get("a", "mixed").unwrap(), "level=static/from-prefixed-env!");
        let mut later = sources;
        later.providers.reverse();
        let r = Resolver::new(&manifest(), later.clone()).unwrap();
        // The env provider's own dotenv file answers for it when the environment does not.
        assert_eq!(r.get("a", "mixed").unwrap(), "level=from-dotenv/from-prefixed-env!");
        // Overrides still win over every provider.
        later.overrides.insert("region".into(), "xx".into());
        let r = Resolver::new(&manifest(), later).unwrap();
        assert_eq!(r.get("a", "mixed").unwrap(), "level=from-dotenv/xx!");
    }

    #[test]
    fn errors_match_spin() {
        let sources = Sources {
            overrides: HashMap::from([("partner_api_key".to_string(), "k".to_string())]),
            env: Some(no_env),
            ..Default::default()
        };
        let r = Resolver::new(&manifest(), sources).unwrap();
        assert!(matches!(
            r.get("a", "Bad-Name"),
            Err(VarError::InvalidName(_))
        ));
        // Declared at app level but not for the component: undefined.
        assert!(matches!(
            r.get("a", "log_level"),
            Err(VarError::Undefined(_))
        ));
        assert!(matches!(r.get("a", "nothing"), Err(VarError::Undefined(_))));
        assert!(matches!(r.get("b", "api_key"), Err(VarError::Undefined(_))));
    }

    #[test]
    fn required_variable_without_value_fails_startup() {
        let sources = Sources {
            env: Some(no_env),
            ..Default::default()
        };
        let err = Resolver::new(&manifest(), sources).unwrap_err();
        assert!(format!("{err:#}").contains("partner_api_key"), "{err:#}");
    }

    #[test]
    fn unknown_template_variable_fails_startup() {
        let m = Manifest::parse(
            "spin_manifest_version = 2\n[component.a]\nsource = \"a.wasm\"\n[component.a.variables]\nx = \"{{ nope }}\"\n",
        )
        .unwrap();
        assert!(Resolver::new(&m, Sources::default()).is_err());
    }

    #[test]
    fn dotenv_parsing() {
        let env = parse_dotenv(
            "# comment\nA=1\nexport B = \"two words\"\nC='x#y'\nD=plain # trailing\n\nbroken line\n",
        );
        assert_eq!(env["A"], "1");
        assert_eq!(env["B"], "two words");
        assert_eq!(env["C"], "x#y");
        assert_eq!(env["D"], "plain");
        assert_eq!(env.len(), 4);
    }
}
