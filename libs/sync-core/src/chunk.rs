//! Splitting a file into the chunks behind search.
//!
//! Markdown splits at its headings (outside fenced code), so a chunk is one section;
//! a section larger than the limit splits at blank lines, then at line ends, then at a
//! character boundary. Chunks are contiguous slices of the text: together they cover
//! it exactly, so nothing is lost and a chunk can always be traced to its bytes.

use std::ops::Range;

/// How large a chunk may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkLimits {
    /// The largest chunk, in bytes (at least 4, the longest UTF-8 character).
    pub max_bytes: usize,
}

impl Default for ChunkLimits {
    fn default() -> Self {
        Self { max_bytes: 2_000 }
    }
}

/// One chunk: a slice of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The position of the chunk in the file, from 0.
    pub ordinal: u32,
    /// The byte range of the chunk in the file.
    pub range: Range<usize>,
    /// The text of the chunk.
    pub text: String,
}

/// Splits `text` into chunks; markdown also splits at its headings.
pub fn chunk_text(text: &str, markdown: bool, limits: ChunkLimits) -> Vec<Chunk> {
    let max = limits.max_bytes.max(4);
    let sections = if markdown {
        section_starts(text)
    } else {
        vec![0]
    };
    let mut ranges = Vec::new();
    for (index, &start) in sections.iter().enumerate() {
        let end = sections.get(index + 1).copied().unwrap_or(text.len());
        split_to_fit(text, start..end, max, &mut ranges);
    }
    ranges
        .into_iter()
        .filter(|range| !text[range.clone()].trim().is_empty())
        .enumerate()
        .map(|(ordinal, range)| Chunk {
            ordinal: u32::try_from(ordinal).unwrap_or(u32::MAX),
            text: text[range.clone()].to_owned(),
            range,
        })
        .collect()
}

/// Byte offsets where a section starts: 0 and every ATX heading line outside a fence.
fn section_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let mut fence: Option<&str> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        match fence {
            Some(marker) if trimmed.starts_with(marker) => fence = None,
            Some(_) => {}
            None if trimmed.starts_with("```") => fence = Some("```"),
            None if trimmed.starts_with("~~~") => fence = Some("~~~"),
            None if offset > 0 && is_heading(line) => starts.push(offset),
            None => {}
        }
        offset += line.len();
    }
    starts
}

/// `#` to `######` at the start of the line, then a space or the end of the line.
fn is_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|&byte| byte == b'#').count();
    (1..=6).contains(&hashes)
        && matches!(
            line.as_bytes().get(hashes),
            None | Some(b' ' | b'\t' | b'\n' | b'\r')
        )
}

/// Pushes `range` as-is when it fits, else cut at the best boundary and recurse.
fn split_to_fit(text: &str, range: Range<usize>, max: usize, out: &mut Vec<Range<usize>>) {
    let mut start = range.start;
    while range.end - start > max {
        let cut = best_cut(&text.as_bytes()[start..start + max + 1]);
        let cut = if cut == 0 {
            char_floor(text, start + max) - start
        } else {
            cut
        };
        out.push(start..start + cut);
        start += cut;
    }
    if start < range.end {
        out.push(start..range.end);
    }
}

/// Just past the last blank line, else the last line end, that leaves the cut inside
/// `window` minus its final byte (0 when none). A cut after `\n` is always a character
/// boundary: the byte never occurs inside a multi-byte character.
fn best_cut(window: &[u8]) -> usize {
    let usable = &window[..window.len().saturating_sub(1)];
    let blank_line = usable.windows(2).rposition(|pair| pair == b"\n\n");
    let line_end = usable.iter().rposition(|&byte| byte == b'\n');
    blank_line
        .map(|at| at + 2)
        .or(line_end.map(|at| at + 1))
        .unwrap_or(0)
}

/// The largest character boundary at or below `at`, but past any first character.
fn char_floor(text: &str, at: usize) -> usize {
    (1..=at)
        .rev()
        .find(|&candidate| text.is_char_boundary(candidate))
        .unwrap_or(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn texts(chunks: &[Chunk]) -> Vec<&str> {
        chunks.iter().map(|chunk| chunk.text.as_str()).collect()
    }

    #[test]
    fn markdown_splits_at_each_heading() {
        let text = "intro\n# One\nbody one\n## Two\nbody two\n";
        let chunks = chunk_text(text, true, ChunkLimits::default());
        assert_eq!(
            texts(&chunks),
            ["intro\n", "# One\nbody one\n", "## Two\nbody two\n"]
        );
    }

    #[test]
    fn a_heading_inside_a_code_fence_does_not_split() {
        let text = "# Top\n```sh\n# a shell comment\n```\nafter\n";
        let chunks = chunk_text(text, true, ChunkLimits::default());
        assert_eq!(texts(&chunks), [text]);
    }

    #[test]
    fn hashes_without_a_space_are_not_a_heading() {
        let text = "# Top\n#hashtag\n####### seven\n";
        assert_eq!(chunk_text(text, true, ChunkLimits::default()).len(), 1);
    }

    #[test]
    fn plain_text_never_splits_at_hash_lines() {
        let text = "a\n# not a heading here\nb\n";
        assert_eq!(
            texts(&chunk_text(text, false, ChunkLimits::default())),
            [text]
        );
    }

    #[test]
    fn a_long_section_splits_at_blank_lines_first() {
        let text = "aaaa\n\nbbbb\n\ncccc\n";
        let chunks = chunk_text(text, true, ChunkLimits { max_bytes: 8 });
        assert_eq!(texts(&chunks), ["aaaa\n\n", "bbbb\n\n", "cccc\n"]);
    }

    #[test]
    fn whitespace_only_pieces_are_not_chunks() {
        assert!(chunk_text("", true, ChunkLimits::default()).is_empty());
        assert!(chunk_text("  \n\n", true, ChunkLimits::default()).is_empty());
    }

    proptest! {
        #[test]
        fn chunks_cover_the_text_in_order_within_the_limit(
            text in "(#{0,3} ?[a-zé€ \n`]{0,30}\n){0,30}", max in 4usize..64, markdown: bool,
        ) {
            let chunks = chunk_text(&text, markdown, ChunkLimits { max_bytes: max });
            let mut covered = 0;
            for (index, chunk) in chunks.iter().enumerate() {
                prop_assert_eq!(chunk.ordinal as usize, index);
                prop_assert!(chunk.range.len() <= max);
                prop_assert!(text[covered..chunk.range.start].trim().is_empty());
                prop_assert_eq!(&text[chunk.range.clone()], chunk.text.as_str());
                covered = chunk.range.end;
            }
            prop_assert!(text[covered..].trim().is_empty());
        }
    }
}
