//! `app` (seed 002 "app.surfaces", "app.module"): UI contributions and a first-party
//! package's prebuilt UI module.

mod module;
mod surface;

pub use module::AppModule;
pub use surface::{AssetMode, Renderer, Surface, SurfaceKind};

use crate::issue::Pointer;
use crate::shape::Cx;
use neuralis_layout::Trust;
use serde::Serialize;
use serde_json::Value;

/// The validated `app` block.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct App {
    pub surfaces: Vec<Surface>,
    /// Present only on a first-party package.
    pub module: Option<AppModule>,
}

pub(crate) fn check(cx: &mut Cx<'_>, value: &Value, at: &Pointer) -> App {
    let mut app = App::default();
    let Some(map) = cx.object(value, at) else {
        return app;
    };
    cx.closed(map, at, &["surfaces", "module"]);
    if let Some(v) = map.get("surfaces") {
        app.surfaces = surface::check_all(cx, v, &at.key("surfaces"));
    }
    if let Some(v) = map.get("module") {
        let module_at = at.key("module");
        if cx.honored(&module_at, Trust::FirstParty, "app.module") {
            app.module = module::check(cx, v, &module_at);
        } else {
            cx.check_dropped(|cx| {
                module::check(cx, v, &module_at);
            });
        }
    }
    app
}
