//! The synthetic project of the load generators (`discovery-load`, `watch-load`): 100
//! tool folders of two skills, a rule and a doc each (100 packages, 400 listed files),
//! and `plain_modules` folders of 100 plain source files outside every package.

use std::path::Path;

use anyhow::Result;

/// Writes the tree under `root`; returns how many files it wrote.
pub fn write_tree(root: &Path, plain_modules: usize) -> Result<usize> {
    let mut files = 0;
    let mut put = |path: String, body: String| -> Result<()> {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap_or(root))?;
        std::fs::write(path, body)?;
        files += 1;
        Ok(())
    };
    for i in 0..100 {
        for k in 0..2 {
            put(
                format!("tools/t{i}/skills/s{k}/SKILL.md"),
                format!("---\nname: t{i}-s{k}\ndescription: skill {k} of tool {i}\n---\nDo it.\n"),
            )?;
        }
        put(
            format!("tools/t{i}/rules/r.md"),
            format!("---\nname: t{i}-rule\n---\nA rule.\n"),
        )?;
        put(
            format!("tools/t{i}/docs/d.md"),
            format!("---\nname: t{i}-doc\n---\nA doc.\n"),
        )?;
    }
    for i in 0..plain_modules {
        for j in 0..100 {
            put(
                format!("src/m{i}/f{j}.rs"),
                format!("pub fn f{j}() -> u32 {{ {j} }}\n"),
            )?;
        }
    }
    Ok(files)
}
