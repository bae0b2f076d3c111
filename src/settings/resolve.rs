//! Resolution of the settings: the default, file, environment and flag
//! layers walked over the schema's table, key by key, each value checked
//! by its row and its origin recorded.

use std::path::Path;

use super::schema::{IGNORED, Leaf, children, int, is_table, leaf};
use super::{CONFIG_FILE, Overrides, Provenance, Settings, SettingsError, Source};

/// Settings under construction plus where each value came from.
struct Layers {
    settings: Settings,
    provenance: Provenance,
}

impl Layers {
    /// The environment's layer: every top-level key set to a non-empty
    /// value (a table key such as `MATTER_CONFIG` as inline TOML).
    fn environment(&mut self, env: impl Fn(&str) -> Option<String>) -> Result<(), SettingsError> {
        for name in children("") {
            let Some(text) = env(name).filter(|t| !t.trim().is_empty()) else {
                continue;
            };
            if let Some(leaf) = leaf(name) {
                let value =
                    leaf.kind
                        .parse_text(&text)
                        .map_err(|allowed| SettingsError::Invalid {
                            key: name.to_string(),
                            value: text.clone(),
                            origin: Source::Env,
                            allowed,
                        })?;
                self.assign(leaf, &value, Source::Env, Some(&text))?;
            } else {
                let table = env_table(name, &text)?;
                self.walk(name, &table, Source::Env)?;
            }
        }
        Ok(())
    }

    /// The flags' layer (`--write`, `--vision`, `--front-pages`, ...).
    fn flags(&mut self, flags: &Overrides) -> Result<(), SettingsError> {
        let flag_values = [
            (
                flags.write.then_some(toml::Value::Boolean(true)),
                "WRITE_PDF_CHANGES",
                "--write",
            ),
            (
                flags.vision.then_some(toml::Value::Boolean(true)),
                "ANALYZE_WITH_VISION",
                "--vision",
            ),
            (
                flags.front_pages.map(int),
                "MATTER_CONFIG.front.max_pages",
                "--front-pages",
            ),
            (
                flags.back_mode.clone().map(toml::Value::String),
                "MATTER_CONFIG.back.mode",
                "--back-mode",
            ),
            (
                flags.back_pages.map(int),
                "MATTER_CONFIG.back.max_pages",
                "--back-pages",
            ),
            (
                flags.online.then_some(toml::Value::Boolean(true)),
                "ONLINE_LOOKUP",
                "--online",
            ),
            (flags.shards.map(int), "SHARDS", "--shards"),
        ];
        for (value, key, flag) in flag_values {
            if let (Some(value), Some(leaf)) = (value, leaf(key)) {
                let shown = match &value {
                    toml::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                self.assign(leaf, &value, Source::Flag(flag), Some(&shown))?;
            }
        }
        Ok(())
    }

    /// Checks `value` for `leaf` and assigns it. `shown` is the value as the
    /// user wrote it, for the error (raw text for environment and flags).
    fn assign(
        &mut self,
        leaf: &'static Leaf,
        value: &toml::Value,
        origin: Source,
        shown: Option<&str>,
    ) -> Result<(), SettingsError> {
        let typed = leaf
            .kind
            .check(value)
            .map_err(|allowed| SettingsError::Invalid {
                key: leaf.key.to_string(),
                value: shown.map_or_else(|| value.to_string(), str::to_string),
                origin,
                allowed,
            })?;
        (leaf.set)(&mut self.settings, &typed);
        self.provenance.sources.insert(leaf.key, origin);
        Ok(())
    }

    /// Assigns every key of `table` (found at `prefix`, "" = top level),
    /// recursing into nested tables; a key not set keeps the lower layer.
    fn walk(
        &mut self,
        prefix: &str,
        table: &toml::Table,
        origin: Source,
    ) -> Result<(), SettingsError> {
        for (name, value) in table {
            let key = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            if let Some(leaf) = leaf(&key) {
                self.assign(leaf, value, origin, None)?;
            } else if is_table(&key) {
                match value {
                    toml::Value::Table(inner) => self.walk(&key, inner, origin)?,
                    other => {
                        return Err(SettingsError::Invalid {
                            value: other.to_string(),
                            origin,
                            allowed: format!(
                                "must be a table with keys {}",
                                children(&key).join(", ")
                            ),
                            key,
                        });
                    }
                }
            } else if IGNORED.contains(&key.as_str()) {
                if !value.is_bool() {
                    return Err(SettingsError::Invalid {
                        key,
                        value: value.to_string(),
                        origin,
                        allowed: "must be true or false (it is ignored: title and \
                                  authors are always wanted)"
                            .into(),
                    });
                }
            } else {
                return Err(unknown(key, prefix, name, origin));
            }
        }
        Ok(())
    }
}

fn unknown(key: String, prefix: &str, name: &str, origin: Source) -> SettingsError {
    let known = children(prefix);
    let hint = known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(name))
        .map(|k| format!("did you mean {k}? "))
        .unwrap_or_default();
    let place = if prefix.is_empty() {
        String::new()
    } else {
        format!(" in {prefix}")
    };
    SettingsError::Unknown {
        key,
        origin,
        allowed: format!("{hint}allowed keys{place} are {}", known.join(", ")),
    }
}

/// Parses the text of a table-valued environment variable: a JSON object,
/// a TOML inline table, or TOML key/value lines.
fn env_table(name: &str, text: &str) -> Result<toml::Table, SettingsError> {
    let text = text.trim();
    let not_table = |value: String| SettingsError::Invalid {
        key: name.to_string(),
        value,
        origin: Source::Env,
        allowed: format!(
            "must be a table with keys {} (JSON object or TOML inline table)",
            children(name).join(", ")
        ),
    };
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(text) {
        return match json {
            serde_json::Value::Object(map) => json_table(name, map),
            _ => Err(not_table(text.to_string())),
        };
    }
    match text.parse::<toml::Value>() {
        Ok(toml::Value::Table(t)) => Ok(t),
        Ok(_) => Err(not_table(text.to_string())),
        Err(inline_err) => text.parse::<toml::Table>().map_err(|doc_err| {
            let err = if text.starts_with('{') {
                inline_err
            } else {
                doc_err
            };
            SettingsError::Parse {
                what: format!("environment variable {name}"),
                message: format!(
                    "expected a JSON object or a TOML inline table: {}",
                    err.to_string().trim_end()
                ),
            }
        }),
    }
}

/// JSON → TOML, so that one walk checks every layer. `null` has no TOML
/// form; it is refused with its key rather than guessed at.
fn json_table(
    key: &str,
    map: serde_json::Map<String, serde_json::Value>,
) -> Result<toml::Table, SettingsError> {
    map.into_iter()
        .map(|(k, v)| {
            let sub = format!("{key}.{k}");
            json_value(&sub, v).map(|v| (k, v))
        })
        .collect()
}

fn json_value(key: &str, value: serde_json::Value) -> Result<toml::Value, SettingsError> {
    use serde_json::Value as J;
    Ok(match value {
        J::Null => {
            return Err(SettingsError::Invalid {
                key: key.to_string(),
                value: "null".into(),
                origin: Source::Env,
                allowed: "null is not a value; leave the key out to keep the lower layer".into(),
            });
        }
        J::Bool(b) => toml::Value::Boolean(b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => toml::Value::String(s),
        J::Array(items) => toml::Value::Array(
            items
                .into_iter()
                .map(|v| json_value(key, v))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(map) => toml::Value::Table(json_table(key, map)?),
    })
}

impl Settings {
    /// Builds the effective settings from four layers, each overriding the
    /// one before it, key by key:
    ///
    /// **flag > environment > file > default**
    ///
    /// - default: [`Settings::default`];
    /// - file: the text of `colophon.toml` (`None` when there is none), keys
    ///   named exactly like the seed settings; tables may be inline or
    ///   `[MATTER_CONFIG.back]` sections;
    /// - environment: `env(NAME)` for every top-level key; scalars as text
    ///   (booleans also as yes/no/on/off/1/0), `MATTER_CONFIG` and
    ///   `VISION_ANALYSIS_THRESHOLDS` as a JSON object or TOML inline table.
    ///   An empty variable counts as unset;
    /// - flags: [`Overrides`].
    ///
    /// A partial table merges over the lower layer (only
    /// `front.max_pages`, say). `VLM_ENDPOINT` follows `VLM_PORT`
    /// (`http://localhost:{port}/api/chat`) unless set explicitly.
    ///
    /// Every layer is checked completely, even when a higher one overrides
    /// a key, so a broken file is reported rather than hidden. Unknown keys,
    /// wrong types and out-of-range values are errors naming key, value,
    /// layer and what is allowed.
    pub fn resolve(
        flags: &Overrides,
        env: impl Fn(&str) -> Option<String>,
        file_text: Option<&str>,
    ) -> Result<Settings, SettingsError> {
        Self::resolve_with_provenance(flags, env, file_text).map(|(s, _)| s)
    }

    /// [`Settings::resolve`], also returning where each value came from.
    pub fn resolve_with_provenance(
        flags: &Overrides,
        env: impl Fn(&str) -> Option<String>,
        file_text: Option<&str>,
    ) -> Result<(Settings, Provenance), SettingsError> {
        let mut layers = Layers {
            settings: Settings::default(),
            provenance: Provenance::default(),
        };

        if let Some(text) = file_text {
            let table: toml::Table = toml::from_str(text).map_err(|e| SettingsError::Parse {
                what: CONFIG_FILE.to_string(),
                message: e.to_string().trim_end().to_string(),
            })?;
            layers.walk("", &table, Source::File)?;
        }

        layers.environment(env)?;
        layers.flags(flags)?;

        if layers.provenance.source("VLM_ENDPOINT") == Source::Default {
            layers.settings.vlm_endpoint =
                format!("http://localhost:{}/api/chat", layers.settings.vlm_port);
        }
        Ok((layers.settings, layers.provenance))
    }

    /// Reads `colophon.toml` under `root`, then resolves with the process
    /// environment and `flags` (see [`Settings::resolve`]).
    pub fn load(flags: &Overrides, root: &Path) -> Result<(Settings, Provenance), SettingsError> {
        let text = read_config_file(&root.join(CONFIG_FILE))?;
        Self::resolve_with_provenance(flags, process_env, text.as_deref())
    }
}

/// The process environment as [`Settings::resolve`] wants it. A value that is
/// not UTF-8 is passed on lossily so that validation names it, rather than
/// being silently treated as unset.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// The text of a config file, `None` when it does not exist.
pub fn read_config_file(path: &Path) -> Result<Option<String>, SettingsError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SettingsError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// An environment made of literal pairs, for tests of what reads one.
#[cfg(test)]
pub(crate) fn env_of(
    pairs: &'static [(&'static str, &'static str)],
) -> impl Fn(&str) -> Option<String> {
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}
