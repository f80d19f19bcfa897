//! The agent's `<data_areas>` block (seed 002, "dataLayout"): "the agent runtime renders
//! one data_areas row per visible package", so an agent, or a freshly spawned delegate
//! that receives no workspace summary, can address a package's layout without guessing a
//! path or listing a root.
//!
//! Names only: the zone root and the declared first-level directories, no descriptions.
//! A package declaring no directory renders no row, and no row renders no block.
//! `machineWritten` is never rendered. The caller passes only the packages the caller may
//! see, so a hidden package never reaches this function.

use crate::overview::escape_text;

/// The placeholder an agent directory shows when the caller acts as no agent.
pub const AGENT_PLACEHOLDER: &str = "{agentId}";

/// One package's declared data layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataArea {
    /// The zone root, `data://<slug>/` or `data://_installed/<slug>/`.
    pub zone_root: String,
    /// `directories`: package-level folders (`<zone>/<name>/`).
    pub directories: Vec<String>,
    /// `agentDirectories`: folders keyed by agent id (`<zone>/<agentId>/<name>/`).
    pub agent_directories: Vec<String>,
}

/// Renders the `<data_areas>` block, one row per area that declares a directory, with
/// agent directories under `agent` (the caller's agent) or [`AGENT_PLACEHOLDER`]. Empty
/// when no area declares anything.
pub fn render_data_areas(areas: &[DataArea], agent: Option<&str>) -> String {
    let rows: Vec<String> = areas.iter().filter_map(|area| row(area, agent)).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut out = String::from("<data_areas>\n");
    for row in rows {
        out.push_str(&row);
        out.push('\n');
    }
    out.push_str("</data_areas>\n");
    out
}

fn row(area: &DataArea, agent: Option<&str>) -> Option<String> {
    if area.directories.is_empty() && area.agent_directories.is_empty() {
        return None;
    }
    let agent = agent.unwrap_or(AGENT_PLACEHOLDER);
    let names: Vec<String> = area
        .directories
        .iter()
        .map(|name| format!("{name}/"))
        .chain(
            area.agent_directories
                .iter()
                .map(|name| format!("{agent}/{name}/")),
        )
        .map(|name| escape_text(&name))
        .collect();
    Some(format!(
        "- {}: {}",
        escape_text(&area.zone_root),
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(zone_root: &str, directories: &[&str], agent_directories: &[&str]) -> DataArea {
        let owned = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect();
        DataArea {
            zone_root: zone_root.to_owned(),
            directories: owned(directories),
            agent_directories: owned(agent_directories),
        }
    }

    fn areas() -> Vec<DataArea> {
        vec![
            area("data://acme/", &["cache", "state"], &["memory"]),
            area("data://_installed/empty/", &[], &[]),
            area("data://_installed/notes/", &[], &["drafts"]),
        ]
    }

    #[test]
    fn data_layout_renders_one_row_per_visible_package_with_the_caller_agent() {
        insta::assert_snapshot!(render_data_areas(&areas(), Some("a1")));
    }

    #[test]
    fn an_agent_directory_keeps_its_placeholder_without_an_agent() {
        insta::assert_snapshot!(render_data_areas(&areas(), None));
    }

    #[test]
    fn an_empty_declaration_renders_no_row_and_no_block() {
        let empty = [area("data://acme/", &[], &[])];
        assert_eq!(render_data_areas(&empty, Some("a1")), "");
    }
}
