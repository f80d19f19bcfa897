//! Locating the `---` block: the first line must be `---`; the block ends at the next
//! `---` or `...` line. Bounded: the block may not exceed [`MAX_FRONTMATTER_BYTES`].

use crate::diagnostic::Diagnostic;

/// The largest frontmatter block read. Real frontmatter is a few hundred bytes; a
/// larger block is hostile or broken and makes the file malformed.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

pub(super) struct Block {
    /// The text between the fences (lossy UTF-8).
    pub text: String,
    /// The file line of the block's first line, minus one: block line `n` (1-based)
    /// is file line `first_line + n`.
    pub first_line: u32,
    pub diagnostics: Vec<Diagnostic>,
}

pub(super) enum Located {
    Absent,
    Malformed(Diagnostic),
    Block(Block),
}

/// Whether the block holds nothing but blank lines and comments.
pub(super) fn is_blank(text: &str) -> bool {
    text.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#')
    })
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

pub(super) fn locate(content: &[u8]) -> Located {
    let content = content.strip_prefix(BOM).unwrap_or(content);
    let mut lines = content.split_inclusive(|b| *b == b'\n');
    match lines.next() {
        Some(first) if is_fence(first, b"---") => {}
        _ => return Located::Absent,
    }
    let start = lines_len(content, 1);
    let mut offset = start;
    for line in lines {
        if is_fence(line, b"---") || is_fence(line, b"...") {
            return block_between(content, start, offset);
        }
        offset += line.len();
        if offset - start > MAX_FRONTMATTER_BYTES {
            return Located::Malformed(Diagnostic::error(
                Some(1),
                format!(
                    "frontmatter exceeds {MAX_FRONTMATTER_BYTES} bytes; the file is not admitted"
                ),
            ));
        }
    }
    Located::Malformed(Diagnostic::error(
        Some(1),
        "frontmatter is not closed by a `---` line; the file is not admitted",
    ))
}

fn block_between(content: &[u8], start: usize, end: usize) -> Located {
    let raw = &content[start..end];
    let mut diagnostics = Vec::new();
    let text = match std::str::from_utf8(raw) {
        Ok(text) => text.to_owned(),
        Err(_) => {
            diagnostics.push(Diagnostic::warning(
                Some(2),
                "frontmatter is not valid UTF-8; invalid bytes were replaced",
            ));
            String::from_utf8_lossy(raw).into_owned()
        }
    };
    Located::Block(Block {
        text,
        first_line: 1,
        diagnostics,
    })
}

/// The byte length of the first `n` lines.
fn lines_len(content: &[u8], n: usize) -> usize {
    content
        .split_inclusive(|b| *b == b'\n')
        .take(n)
        .map(<[u8]>::len)
        .sum()
}

fn is_fence(line: &[u8], fence: &[u8]) -> bool {
    let trimmed = line.strip_suffix(b"\n").unwrap_or(line);
    let trimmed = trimmed.strip_suffix(b"\r").unwrap_or(trimmed);
    trimmed.trim_ascii_end() == fence
}
