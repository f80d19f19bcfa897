//! Per-agent privacy (seed 000, "Per-agent privacy"; DESIGN.md section 4, "Privacy"):
//! a source declares agent-private subtrees as patterns with an `{agent}` placeholder;
//! a matching path belongs to that agent alone, names included.
//!
//! Pattern segments: a literal, `*` (one segment), `**` (any number of segments), or a
//! segment holding `{agent}` once (with an optional literal prefix and suffix), which
//! captures the owning agent id. A pattern without `{agent}` names no owner and is
//! ignored.

/// The default private subtree of an agent data tree.
pub const DEFAULT_AGENT_PRIVATE_PATTERN: &str = "agents/{agent}/**";

const PLACEHOLDER: &str = "{agent}";

/// The agent that owns `path` (relative to the source root), by the first pattern that
/// matches; `None` when no pattern matches.
pub fn privacy_owner(path: &str, patterns: &[String]) -> Option<String> {
    if patterns.is_empty() {
        return None;
    }
    let segments: Vec<&str> = path.split('/').collect();
    patterns.iter().find_map(|pattern| {
        let pattern: Vec<&str> = pattern.split('/').collect();
        if !pattern.iter().any(|p| p.contains(PLACEHOLDER)) {
            return None;
        }
        owner_by(&pattern, &segments)
    })
}

/// Matches with `**` by dynamic programming over (pattern, path) positions, so no
/// pattern costs more than their product; returns the captured agent.
fn owner_by(pattern: &[&str], path: &[&str]) -> Option<String> {
    // reach[i][j]: pattern[..i] matches path[..j]; capture recorded on the way.
    let (n, m) = (pattern.len(), path.len());
    let mut reach: Vec<Vec<Option<Option<&str>>>> = vec![vec![None; m + 1]; n + 1];
    reach[0][0] = Some(None);
    for i in 0..n {
        for j in 0..=m {
            let Some(captured) = reach[i][j] else {
                continue;
            };
            let segment = pattern[i];
            if segment == "**" {
                for cell in &mut reach[i + 1][j..=m] {
                    cell.get_or_insert(captured);
                }
            } else if let Some(capture) = path.get(j).and_then(|p| match_segment(segment, p)) {
                reach[i + 1][j + 1].get_or_insert(capture.or(captured));
            }
        }
    }
    reach[n][m].flatten().map(str::to_owned)
}

/// `Some(capture)` when the segment matches; the capture is the `{agent}` part.
fn match_segment<'p>(pattern: &str, segment: &'p str) -> Option<Option<&'p str>> {
    if pattern == "*" {
        return (!segment.is_empty()).then_some(None);
    }
    let Some((prefix, suffix)) = pattern.split_once(PLACEHOLDER) else {
        return (pattern == segment).then_some(None);
    };
    let agent = segment.strip_prefix(prefix)?.strip_suffix(suffix)?;
    // An empty id, or one that could be a path trick, owns nothing.
    let valid = !agent.is_empty() && agent != "." && agent != "..";
    valid.then_some(Some(agent))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(path: &str, patterns: &[&str]) -> Option<String> {
        let patterns: Vec<String> = patterns.iter().map(|p| (*p).to_owned()).collect();
        privacy_owner(path, &patterns)
    }

    #[test]
    fn the_default_pattern_gives_each_agent_its_subtree() {
        let default = [DEFAULT_AGENT_PRIVATE_PATTERN];
        let cases = [
            ("agents/alice/skills/x/SKILL.md", Some("alice")),
            ("agents/bob/notes.md", Some("bob")),
            ("agents/alice", Some("alice")),
            ("agents/x.md", Some("x.md")),
            ("shared/agents/alice/x.md", None),
            ("agentsx/alice/x.md", None),
            ("README.md", None),
        ];
        for (path, expected) in cases {
            assert_eq!(owner(path, &default).as_deref(), expected, "{path}");
        }
    }

    #[test]
    fn placeholders_with_prefix_and_suffix_and_wildcards() {
        let patterns = ["data/*/private-{agent}/**", "**/{agent}.secret.md"];
        assert_eq!(
            owner("data/x/private-carol/a/b", &patterns).as_deref(),
            Some("carol")
        );
        assert_eq!(
            owner("deep/down/dave.secret.md", &patterns).as_deref(),
            Some("dave")
        );
        assert_eq!(owner("data/x/public-carol/a", &patterns), None);
    }

    #[test]
    fn the_first_matching_pattern_wins_and_patterns_without_a_placeholder_name_no_owner() {
        let patterns = ["**", "team/{agent}/**", "team/x/{agent}/**"];
        assert_eq!(owner("team/x/y/z", &patterns).as_deref(), Some("x"));
        assert_eq!(owner("team/a", &["team/**"]), None);
    }

    #[test]
    fn an_empty_or_dot_agent_owns_nothing() {
        assert_eq!(owner("agents//x", &[DEFAULT_AGENT_PRIVATE_PATTERN]), None);
        assert_eq!(owner("agents/../x", &[DEFAULT_AGENT_PRIVATE_PATTERN]), None);
    }

    #[test]
    fn many_double_stars_stay_cheap() {
        let pattern = ["**/".repeat(50) + "{agent}/" + &"**/".repeat(50) + "end"];
        let path = "a/".repeat(200) + "end";
        let patterns: Vec<&str> = pattern.iter().map(String::as_str).collect();
        assert_eq!(owner(&path, &patterns).as_deref(), Some("a"));
    }
}
