//! The directory contract (seed 001 "Directory contract"): which files of an
//! installed package declare what. Markdown contributions (skills, instructions,
//! rules, agents, docs, `commands/*.md`) are the layout core's; this module reads the
//! JSON declarations: `tools/*.json`, `workflows/*.json`, `commands/*.json`,
//! `hooks.json` and `team/<slug>/member.json` with its `identity/*.md` and
//! `files/**/*.md`. Every one is validated; any error rejects the package.

use neuralis_manifest::Issue;
use neuralis_manifest::definitions::{
    CommandDef, HookDef, TeamMember, ToolDef, WorkflowDef, command_file, hooks_file, member_file,
    tool_file, workflow_file,
};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A finding in one file of a package: the file, a JSON pointer into it, a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileIssue {
    pub file: String,
    pub pointer: String,
    pub message: String,
}

impl FileIssue {
    pub(crate) fn new(file: &str, issue: Issue) -> Self {
        FileIssue {
            file: file.to_owned(),
            pointer: issue.pointer,
            message: issue.message,
        }
    }
}

impl std::fmt::Display for FileIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}#{}: {}", self.file, self.pointer, self.message)
    }
}

/// A team member with the markdown that belongs to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TeamMemberFiles {
    pub member: TeamMember,
    /// `team/<slug>/identity/*.md`, package-relative.
    pub identity: Vec<String>,
    /// `team/<slug>/files/**/*.md`, package-relative.
    pub files: Vec<String>,
}

/// The file-based declarations of one package.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FileDeclarations {
    pub tools: Vec<ToolDef>,
    pub workflows: Vec<WorkflowDef>,
    pub commands: Vec<CommandDef>,
    pub hooks: Vec<HookDef>,
    pub team: Vec<TeamMemberFiles>,
}

/// What a package-relative path declares under the contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Declaration<'a> {
    Tool,
    Workflow { stem: &'a str },
    Command,
    Hooks,
    Member { slug: &'a str },
    MemberIdentity { slug: &'a str },
    MemberFile { slug: &'a str },
}

/// Classifies one package-relative path; `None` for everything the contract does not
/// read as a JSON declaration (markdown goes to the layout core).
pub fn classify(path: &str) -> Option<Declaration<'_>> {
    let segments: Vec<&str> = path.split('/').collect();
    match segments.as_slice() {
        ["tools", file] if is_json(file) => Some(Declaration::Tool),
        ["workflows", file] if is_json(file) => Some(Declaration::Workflow { stem: stem(file) }),
        ["commands", file] if is_json(file) => Some(Declaration::Command),
        ["hooks.json"] => Some(Declaration::Hooks),
        ["team", slug, "member.json"] => Some(Declaration::Member { slug }),
        ["team", slug, "identity", file] if file.ends_with(".md") => {
            Some(Declaration::MemberIdentity { slug })
        }
        ["team", slug, "files", rest @ ..] if rest.last().is_some_and(|f| f.ends_with(".md")) => {
            Some(Declaration::MemberFile { slug })
        }
        _ => None,
    }
}

fn is_json(file: &str) -> bool {
    file.len() > ".json".len() && file.ends_with(".json") && !file.starts_with('.')
}

fn stem(file: &str) -> &str {
    file.strip_suffix(".json").unwrap_or(file)
}

/// Reads every JSON declaration of a package; returns what loaded and every error.
pub fn scan(files: &BTreeMap<String, Vec<u8>>) -> (FileDeclarations, Vec<FileIssue>) {
    let mut out = FileDeclarations::default();
    let mut issues = Vec::new();
    let mut member_md: BTreeMap<&str, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for (path, bytes) in files {
        let Some(kind) = classify(path) else { continue };
        match kind {
            Declaration::MemberIdentity { slug } => {
                member_md.entry(slug).or_default().0.push(path.clone())
            }
            Declaration::MemberFile { slug } => {
                member_md.entry(slug).or_default().1.push(path.clone())
            }
            _ => read_declaration(path, bytes, kind, &mut out, &mut issues),
        }
    }
    attach_member_markdown(&mut out.team, member_md);
    (out, issues)
}

fn read_declaration(
    path: &str,
    bytes: &[u8],
    kind: Declaration<'_>,
    out: &mut FileDeclarations,
    issues: &mut Vec<FileIssue>,
) {
    let document: Value = match serde_json::from_slice(bytes) {
        Ok(document) => document,
        Err(error) => {
            issues.push(FileIssue {
                file: path.to_owned(),
                pointer: String::new(),
                message: format!("is not valid JSON: {error}"),
            });
            return;
        }
    };
    let result = match kind {
        Declaration::Tool => tool_file(&document).map(|t| add_tool(path, t, out, issues)),
        Declaration::Workflow { stem } => {
            workflow_file(stem, &document).map(|w| out.workflows.push(w))
        }
        Declaration::Command => command_file(&document).map(|c| out.commands.push(c)),
        Declaration::Hooks => hooks_file(&document).map(|h| out.hooks.extend(h)),
        Declaration::Member { slug } => member_file(slug, &document).map(|member| {
            out.team.push(TeamMemberFiles {
                member,
                identity: Vec::new(),
                files: Vec::new(),
            })
        }),
        Declaration::MemberIdentity { .. } | Declaration::MemberFile { .. } => Ok(()),
    };
    if let Err(errors) = result {
        issues.extend(errors.into_iter().map(|e| FileIssue::new(path, e)));
    }
}

/// Identity and file markdown belong to the member whose folder holds them; without
/// a `member.json` they declare nothing.
fn attach_member_markdown(
    team: &mut [TeamMemberFiles],
    mut md: BTreeMap<&str, (Vec<String>, Vec<String>)>,
) {
    for entry in team {
        if let Some((identity, files)) = md.remove(entry.member.slug.as_str()) {
            entry.identity = identity;
            entry.files = files;
        }
    }
}

/// Two tool files of one package declaring one name: the package contradicts itself.
fn add_tool(path: &str, tool: ToolDef, out: &mut FileDeclarations, issues: &mut Vec<FileIssue>) {
    if out.tools.iter().any(|t| t.name == tool.name) {
        let message = format!(
            "tool name {:?} is already declared by another file of this package",
            tool.name
        );
        issues.push(FileIssue {
            file: path.to_owned(),
            pointer: "/name".into(),
            message,
        });
        return;
    }
    out.tools.push(tool);
}
