//! `app.surfaces[]`: kinds widget, card and dock; the renderer a surface may use
//! depends on trust (direct React is first-party only); an iframe url lies in the
//! surface's canonical root `app/surfaces/{kind}/{surfaceId}/`.

use crate::issue::Pointer;
use crate::package_path::inside_package;
use crate::requires::gate;
use crate::shape::Cx;
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::{Map, Value};

/// The three surface kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SurfaceKind {
    Widget,
    Card,
    Dock,
}

/// How a widget's component or a card's render block is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Renderer {
    /// Direct React: first-party only.
    React,
    /// A sandboxed iframe at a package-relative url.
    Iframe,
}

/// Whether the platform serves an iframe entry's sibling files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AssetMode {
    SelfContained,
    Bundle,
}

/// One validated surface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Surface {
    pub kind: SurfaceKind,
    pub id: String,
    pub renderer: Option<Renderer>,
    /// The normalized package-relative iframe url.
    pub url: Option<String>,
    #[serde(rename = "assetMode")]
    pub asset_mode: Option<AssetMode>,
    /// Features a caller needs to see the surface.
    pub features: Vec<String>,
}

pub(crate) fn check_all(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Vec<Surface> {
    let Some(items) = cx.array(value, at) else {
        return Vec::new();
    };
    let mut surfaces: Vec<Surface> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_at = at.index(i);
        let Some(surface) = check(cx, item, &item_at) else {
            continue;
        };
        if surfaces.iter().any(|s| s.id == surface.id) {
            cx.error(
                &item_at.key("id"),
                format!("duplicate surface id {:?}", surface.id),
            );
            continue;
        }
        surfaces.push(surface);
    }
    surfaces
}

fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> Option<Surface> {
    let map = cx.object(value, at)?;
    let kind = kind(cx, map, at);
    let id = cx.required_text(map, at, "id");
    let features = map
        .get("requires")
        .map(|r| gate(cx, r, &at.key("requires")))
        .unwrap_or_default();
    let (kind, id) = (kind?, id?.to_owned());
    let mut surface = Surface {
        kind,
        id,
        renderer: None,
        url: None,
        asset_mode: None,
        features,
    };
    match kind {
        SurfaceKind::Widget => {
            let surface_id = cx.required_text(map, at, "type").map(str::to_owned);
            render_block(
                cx,
                map,
                at,
                "component",
                surface_id.as_deref(),
                &mut surface,
            )?;
        }
        SurfaceKind::Card => {
            let surface_id = surface.id.clone();
            render_block(cx, map, at, "render", Some(&surface_id), &mut surface)?;
        }
        SurfaceKind::Dock => dock_action(cx, map, at)?,
    }
    Some(surface)
}

fn kind(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer) -> Option<SurfaceKind> {
    let (v, p) = cx.required(map, at, "kind")?;
    match cx.string(v, &p)? {
        "widget" => Some(SurfaceKind::Widget),
        "card" => Some(SurfaceKind::Card),
        "dock" => Some(SurfaceKind::Dock),
        other => {
            cx.error(
                &p,
                format!("{other:?} is not a surface kind; allowed: widget, card, dock"),
            );
            None
        }
    }
}

/// A widget's `component` or a card's `render`: the renderer, the url and assetMode.
fn render_block(
    cx: &mut Cx<'_>,
    map: &Map<String, Value>,
    at: &Pointer,
    key: &str,
    surface_id: Option<&str>,
    surface: &mut Surface,
) -> Option<()> {
    let (v, block_at) = cx.required(map, at, key)?;
    let block = cx.object(v, &block_at)?;
    surface.asset_mode = asset_mode(cx, block, &block_at);
    let (r, r_at) = cx.required(block, &block_at, "renderer")?;
    match cx.string(r, &r_at)? {
        "react" if cx.trust == Trust::FirstParty => surface.renderer = Some(Renderer::React),
        "react" => cx.error(
            &r_at,
            "direct React is first-party only; this package must use renderer \"iframe\"",
        ),
        "iframe" => {
            surface.renderer = Some(Renderer::Iframe);
            let root = format!("app/surfaces/{}/{}/", kind_name(surface.kind), surface_id?);
            surface.url = iframe_url(cx, block, &block_at, &root);
        }
        other => cx.error(
            &r_at,
            format!("{other:?} is not a renderer; allowed: react (first-party), iframe"),
        ),
    }
    Some(())
}

fn kind_name(kind: SurfaceKind) -> &'static str {
    match kind {
        SurfaceKind::Widget => "widget",
        SurfaceKind::Card => "card",
        SurfaceKind::Dock => "dock",
    }
}

/// "An iframe surface's relative url must point into that surface's own canonical
/// root — app/surfaces/{kind}/{surfaceId}/".
fn iframe_url(
    cx: &mut Cx<'_>,
    block: &Map<String, Value>,
    at: &Pointer,
    root: &str,
) -> Option<String> {
    let url = cx.required_text(block, at, "url")?;
    let url_at = at.key("url");
    let path = match inside_package(url) {
        Ok(path) => path,
        Err(problem) => {
            cx.error(&url_at, format!("{problem}; an iframe url lies in {root}"));
            return None;
        }
    };
    if !path.starts_with(root) || path.len() == root.len() {
        cx.error(
            &url_at,
            format!("{url:?} is outside this surface's root; an iframe url lies in {root}"),
        );
        return None;
    }
    Some(path)
}

fn asset_mode(cx: &mut Cx<'_>, block: &Map<String, Value>, at: &Pointer) -> Option<AssetMode> {
    let v = block.get("assetMode")?;
    let mode_at = at.key("assetMode");
    match cx.string(v, &mode_at)? {
        "self-contained" => Some(AssetMode::SelfContained),
        "bundle" => Some(AssetMode::Bundle),
        other => {
            cx.error(
                &mode_at,
                format!("{other:?} is not an asset mode; allowed: self-contained, bundle"),
            );
            None
        }
    }
}

fn dock_action(cx: &mut Cx<'_>, map: &Map<String, Value>, at: &Pointer) -> Option<()> {
    cx.required_text(map, at, "label");
    let (v, action_at) = cx.required(map, at, "action")?;
    let action = cx.object(v, &action_at)?;
    cx.required_text(action, &action_at, "type")?;
    Some(())
}
