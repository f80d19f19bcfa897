//! `ListTools` and `RenderOverview`: the tool catalog and the `<packages>` block of the
//! caller's decided answer.

use neuralis_assembly::{O200k, render_overview, render_overview_within};
use neuralis_proto::discovery::v1 as pb;

use crate::base::convert;
use crate::base::error::DiscoveryError;
use crate::base::ports::InstalledCatalog;
use crate::decision::answer::Answer;

/// The `<packages>` overview block of `answer` followed by `always` (the `<data_areas>`
/// block), within `budget_tokens` when it is not 0.
pub(crate) fn overview(
    answer: &Answer,
    always: &str,
    budget_tokens: u32,
) -> Result<pb::RenderOverviewResponse, DiscoveryError> {
    if budget_tokens == 0 {
        let mut text = render_overview(&answer.packages);
        text.push_str(always);
        return Ok(pb::RenderOverviewResponse {
            text,
            ..Default::default()
        });
    }
    let fitted =
        render_overview_within(&answer.packages, always, budget_tokens as usize, &O200k)
            .map_err(|refused| DiscoveryError::invalid("budget_tokens", refused.to_string()))?;
    Ok(pb::RenderOverviewResponse {
        text: fitted.text,
        // Both are at most the budget or the count of listed entries.
        tokens_used: u32::try_from(fitted.tokens).unwrap_or(u32::MAX),
        left_out: u32::try_from(fitted.left_out).unwrap_or(u32::MAX),
    })
}

/// One page of the tools `answer` lets the caller use.
pub(crate) fn tools(
    answer: &Answer,
    catalog: &dyn InstalledCatalog,
    request: &pb::ListToolsRequest,
) -> Result<pb::ListToolsResponse, DiscoveryError> {
    // By the tools' own decisions, not by the listing: a tools-only package lists no
    // file, and its tools still answer; a tool gated by features the caller lacks is
    // absent and claims no contested name.
    let usable = |package: &str, tool: &str| {
        answer
            .usable_tools
            .contains(&(package.to_owned(), tool.to_owned()))
    };
    // The packages of the project's flagged sources offer tools too (seed 000).
    let (tools, contested) = catalog.tools_beside(&answer.usable_beside, &usable);
    let mut answer = convert::tools(tools, contested);
    // One page of the tools (one owner per name, so the name keys it); the contested
    // names are a summary, answered in full on every page.
    let (tools, next_page_token) = neuralis_proto::page::page(
        std::mem::take(&mut answer.tools),
        request.page_size,
        &request.page_token,
        |tool| tool.name.as_str(),
    )
    .map_err(|e| DiscoveryError::invalid(e.field, e.message))?;
    answer.tools = tools;
    answer.next_page_token = next_page_token;
    Ok(answer)
}
