//! A rendered chart, read back as the processes its pods would run: each container's
//! arguments, its environment with Secrets and ConfigMaps resolved, and its mounted
//! files written under a local root. Paths under a mount, service hosts and ports are
//! the only things rewritten (a map given by the caller), so a process started from a
//! [`Container`] is the pod's process on this machine.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use serde_json::Value;

/// Every object of a render, by kind.
pub struct Render {
    objects: Vec<Value>,
    /// Secrets the operator manages (existingSecret), by name: key to content.
    pub external: HashMap<String, BTreeMap<String, String>>,
}

/// One container, ready to start locally.
#[derive(Debug, Clone)]
pub struct Container {
    /// `<workload>/<container>`.
    pub name: String,
    /// The component label of its pod (`sync`, `all-in-one`, `test`...).
    pub component: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// The readiness probe: a gRPC service name, an admin-port path, or a command.
    pub probe: Option<Probe>,
    /// The user the pod runs as.
    pub run_as: Option<u32>,
    /// Whether the pod's root filesystem is read-only.
    pub read_only_root: bool,
    /// A Job Helm runs before installing or upgrading the release (`helm.sh/hook`
    /// `pre-install`/`pre-upgrade`): run to completion before any server starts.
    pub pre_install: bool,
}

#[derive(Debug, Clone)]
pub enum Probe {
    Grpc {
        service: String,
    },
    /// An HTTP GET of `path` on the admin port.
    Http {
        path: String,
    },
    Exec {
        command: Vec<String>,
    },
}

impl Render {
    /// Parses a multi-document render.
    pub fn parse(text: &str) -> Result<Self> {
        let objects: Vec<Value> =
            serde_saphyr::from_str_multiple(text).context("parsing the render")?;
        Ok(Self {
            objects: objects.into_iter().filter(|o| !o.is_null()).collect(),
            external: HashMap::new(),
        })
    }

    /// Objects of `kind`.
    pub fn of_kind<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
        self.objects.iter().filter(move |o| o["kind"] == kind)
    }

    /// The containers of every Deployment, StatefulSet and Job (and, with `tests`, of
    /// the `helm test` pods), their mounts written under `root` and every string passed
    /// through `rewrite`.
    pub fn containers(
        &self,
        root: &Path,
        tests: bool,
        rewrite: &dyn Fn(&str, &str) -> String,
    ) -> Result<Vec<Container>> {
        let mut found = Vec::new();
        for object in &self.objects {
            let kind = object["kind"].as_str().unwrap_or_default();
            let (spec, labels) = match kind {
                "Deployment" | "StatefulSet" => (
                    &object["spec"]["template"]["spec"],
                    &object["spec"]["template"]["metadata"]["labels"],
                ),
                "Pod" if tests => (&object["spec"], &object["metadata"]["labels"]),
                "Job" => (
                    &object["spec"]["template"]["spec"],
                    &object["spec"]["template"]["metadata"]["labels"],
                ),
                _ => continue,
            };
            let workload = object["metadata"]["name"].as_str().unwrap_or_default();
            let pre_install = object["metadata"]["annotations"]["helm.sh/hook"]
                .as_str()
                .is_some_and(|hook| hook.split(',').any(|h| h == "pre-install"));
            let component = labels["app.kubernetes.io/component"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let pod_root = root.join(workload);
            let volumes = self.volumes(spec, object)?;
            for container in spec["containers"].as_array().into_iter().flatten() {
                let name = container["name"].as_str().unwrap_or_default();
                let map =
                    |text: &str| rewrite(&component, &mount_paths(container, &pod_root, text));
                self.mount(container, &volumes, &pod_root, &map)?;
                found.push(Container {
                    name: format!("{workload}/{name}"),
                    component: component.clone(),
                    args: strings(&container["args"]).iter().map(|a| map(a)).collect(),
                    env: self
                        .env(container)?
                        .into_iter()
                        .map(|(k, v)| (k, map(&v)))
                        .collect(),
                    probe: probe(&container["readinessProbe"]).map(|p| match p {
                        Probe::Exec { command } => Probe::Exec {
                            command: command.iter().map(|c| map(c)).collect(),
                        },
                        grpc => grpc,
                    }),
                    run_as: spec["securityContext"]["runAsUser"]
                        .as_u64()
                        .map(|u| u as u32),
                    read_only_root: container["securityContext"]["readOnlyRootFilesystem"] == true,
                    pre_install,
                });
            }
        }
        Ok(found)
    }

    fn secret(&self, name: &str) -> Result<BTreeMap<String, String>> {
        if let Some(external) = self.external.get(name) {
            return Ok(external.clone());
        }
        let secret = self
            .of_kind("Secret")
            .find(|s| s["metadata"]["name"] == name)
            .ok_or_else(|| anyhow!("Secret {name} is neither rendered nor provided"))?;
        Ok(string_map(&secret["stringData"]))
    }

    fn config_map(&self, name: &str) -> Result<BTreeMap<String, String>> {
        let map = self
            .of_kind("ConfigMap")
            .find(|s| s["metadata"]["name"] == name)
            .ok_or_else(|| anyhow!("ConfigMap {name} is not rendered"))?;
        Ok(string_map(&map["data"]))
    }

    /// Volume name to its files (`None` for a writable directory).
    fn volumes(
        &self,
        spec: &Value,
        workload: &Value,
    ) -> Result<HashMap<String, Option<BTreeMap<String, String>>>> {
        let mut volumes = HashMap::new();
        for volume in spec["volumes"].as_array().into_iter().flatten() {
            let name = volume["name"].as_str().unwrap_or_default().to_owned();
            let files = if let Some(map) = volume["configMap"]["name"].as_str() {
                Some(self.config_map(map)?)
            } else if let Some(secret) = volume["secret"]["secretName"].as_str() {
                Some(self.secret(secret)?)
            } else if volume.get("emptyDir").is_some() {
                None
            } else {
                bail!("volume {name}: only configMap, secret and emptyDir are understood");
            };
            volumes.insert(name, files);
        }
        for claim in workload["spec"]["volumeClaimTemplates"]
            .as_array()
            .into_iter()
            .flatten()
        {
            volumes.insert(
                claim["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                None,
            );
        }
        Ok(volumes)
    }

    fn mount(
        &self,
        container: &Value,
        volumes: &HashMap<String, Option<BTreeMap<String, String>>>,
        pod_root: &Path,
        map: &dyn Fn(&str) -> String,
    ) -> Result<()> {
        for mount in container["volumeMounts"].as_array().into_iter().flatten() {
            let name = mount["name"].as_str().unwrap_or_default();
            let target = local(pod_root, mount["mountPath"].as_str().unwrap_or_default());
            let files = volumes
                .get(name)
                .ok_or_else(|| anyhow!("mount of unknown volume {name}"))?;
            match (files, mount["subPath"].as_str()) {
                (Some(files), Some(key)) => {
                    let content = files
                        .get(key)
                        .ok_or_else(|| anyhow!("{name} has no {key}"))?;
                    write(&target, &map(content), 0o644)?;
                }
                (Some(files), None) => {
                    for (key, content) in files {
                        write(&target.join(key), &map(content), 0o644)?;
                    }
                }
                (None, _) => {
                    std::fs::create_dir_all(&target)?;
                    set_mode(&target, 0o777)?;
                }
            }
        }
        Ok(())
    }

    fn env(&self, container: &Value) -> Result<Vec<(String, String)>> {
        let mut env = Vec::new();
        for entry in container["env"].as_array().into_iter().flatten() {
            let name = entry["name"].as_str().unwrap_or_default().to_owned();
            let value = if let Some(value) = entry["value"].as_str() {
                value.to_owned()
            } else if let Some(reference) = entry["valueFrom"]["secretKeyRef"].as_object() {
                let secret = self.secret(reference["name"].as_str().unwrap_or_default())?;
                let key = reference["key"].as_str().unwrap_or_default();
                secret
                    .get(key)
                    .cloned()
                    .ok_or_else(|| anyhow!("{name}: the Secret has no key {key}"))?
            } else {
                bail!("{name}: only value and secretKeyRef are understood");
            };
            env.push((name, value));
        }
        Ok(env)
    }
}

/// Where a pod path lives under the local root.
pub fn local(pod_root: &Path, path: &str) -> PathBuf {
    pod_root.join("fs").join(path.trim_start_matches('/'))
}

/// `text` with every path under one of the container's mounts moved under `pod_root`,
/// in one pass (a local path is never rewritten again), wherever a path starts: at the
/// start of the text or after a character that cannot be part of a path.
fn mount_paths(container: &Value, pod_root: &Path, text: &str) -> String {
    let mut mounts: Vec<&str> = container["volumeMounts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["mountPath"].as_str())
        .collect();
    mounts.sort_by_key(|m| std::cmp::Reverse(m.len()));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut at_boundary = true;
    while !rest.is_empty() {
        let matched = at_boundary
            .then(|| {
                mounts.iter().find(|mount| {
                    rest.strip_prefix(**mount).is_some_and(|after| {
                        after.is_empty()
                            || !is_path_char(after.chars().next().unwrap_or(' '))
                            || after.starts_with('/')
                    })
                })
            })
            .flatten();
        if let Some(mount) = matched {
            out.push_str(&local(pod_root, mount).display().to_string());
            rest = &rest[mount.len()..];
            at_boundary = false;
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        at_boundary = !is_path_char(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-')
}

fn probe(probe: &Value) -> Option<Probe> {
    if let Some(path) = probe["httpGet"]["path"].as_str() {
        return Some(Probe::Http {
            path: path.to_owned(),
        });
    }
    if let Some(service) = probe["grpc"]["service"].as_str() {
        return Some(Probe::Grpc {
            service: service.to_owned(),
        });
    }
    probe["exec"]["command"].as_array().map(|_| Probe::Exec {
        command: strings(&probe["exec"]["command"]),
    })
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn string_map(value: &Value) -> BTreeMap<String, String> {
    value
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
        .collect()
}

fn write(path: &Path, content: &str, mode: u32) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, content).with_context(|| format!("writing {}", path.display()))?;
    set_mode(path, mode)
}

/// Sets a file's mode (the pod's user must read what root wrote).
pub fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    Ok(())
}
