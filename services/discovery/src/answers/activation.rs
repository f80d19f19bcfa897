//! `ActivateSkill`: one skill of the caller's decided answer, with its body read now.

use neuralis_assembly::FileState;
use neuralis_proto::discovery::v1 as pb;

use crate::answers::content::Content;
use crate::answers::flags;
use crate::base::error::DiscoveryError;
use crate::decision::answer::Answer;

/// The skill `request` names, when it is active in `answer`; NOT_FOUND otherwise.
pub(crate) async fn activate(
    request: pb::ActivateSkillRequest,
    answer: &Answer,
    administrator: bool,
    content: &Content<'_>,
) -> Result<pb::ActivateSkillResponse, DiscoveryError> {
    let (pi, fi) = answer
        .skills()
        .resolve(&request.skill_id)
        .ok_or(DiscoveryError::NotFound)?;
    let package = &answer.packages[pi];
    let skill = &package.files[fi];
    if skill.state != FileState::Active {
        return Err(DiscoveryError::NotFound);
    }
    let at = &answer.content[pi][fi];
    // A file that vanished since it was indexed fails closed, like an unknown id.
    let body = content.read(at).await?;
    let (content_flags, flagged_files) = flags::of_file(content.snapshot, skill, at);
    Ok(pb::ActivateSkillResponse {
        id: request.skill_id,
        title: skill.title.clone(),
        body: String::from_utf8_lossy(&body).into_owned(),
        files: skill.bundle.clone(),
        directory_uri: at.directory_uri(administrator),
        package_name: package.name.clone(),
        allowed_tools: skill.allowed_tools.clone(),
        content_flags,
        flagged_files,
    })
}
