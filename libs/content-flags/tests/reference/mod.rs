//! The first, unoptimised detector, kept verbatim as the reference the fast one must
//! agree with on every input (per-line splits, byte windows, a lowercase copy per line).

#![allow(dead_code)]

use neuralis_content_flags::{Flag, is_markdown};

/// The flags of one file, as the reference reads them.
pub fn detect(path: &str, content: &[u8]) -> Vec<Flag> {
    let mut flags = Vec::new();
    if unicode::has_hidden(content) {
        flags.push(Flag::HiddenUnicode);
    }
    if is_markdown(path) && comment::has_hidden_comment(content) {
        flags.push(Flag::HiddenComment);
    }
    if pipe::has_piped_execution(content) {
        flags.push(Flag::PipedRemoteExecution);
    }
    flags
}

mod unicode {
    /// Whether `content` holds any of them. Works on bytes: every one of these characters
    /// has a lead byte of 0xD8 (U+061C), 0xE2, 0xEF or 0xF3 in UTF-8, so everything else is
    /// skipped without decoding; invalid UTF-8 is never an error.
    pub fn has_hidden(content: &[u8]) -> bool {
        let mut at = 0;
        while let Some(offset) = content[at..]
            .iter()
            .position(|&b| matches!(b, 0xD8 | 0xE2 | 0xEF | 0xF3))
        {
            let start = at + offset;
            if hidden_at(content, start) {
                return true;
            }
            at = start + 1;
        }
        false
    }

    fn hidden_at(content: &[u8], start: usize) -> bool {
        let rest = &content[start..];
        match rest {
            // U+061C ARABIC LETTER MARK.
            [0xD8, 0x9C, ..] => true,
            // U+200B–U+200F, U+202A–U+202E.
            [0xE2, 0x80, third, ..] => matches!(third, 0x8B..=0x8F | 0xAA..=0xAE),
            // U+2060–U+2064 (word joiner, invisible operators), U+2066–U+2069 (isolates).
            [0xE2, 0x81, third, ..] => matches!(third, 0xA0..=0xA4 | 0xA6..=0xA9),
            // U+FEFF (a BOM) anywhere but at the very start.
            [0xEF, 0xBB, 0xBF, ..] => start != 0,
            // U+E0000–U+E007F, the tag block: F3 A0 80..81 xx.
            [0xF3, 0xA0, 0x80 | 0x81, _, ..] => true,
            _ => false,
        }
    }
}

mod comment {
    /// Whether `content` holds a comment with words in it.
    pub fn has_hidden_comment(content: &[u8]) -> bool {
        let mut at = 0;
        while let Some(offset) = find(&content[at..], b"<!--") {
            let body_start = at + offset + 4;
            let body_end =
                find(&content[body_start..], b"-->").map_or(content.len(), |end| body_start + end);
            if content[body_start..body_end]
                .iter()
                .any(|b| b.is_ascii_alphanumeric() || *b >= 0x80)
            {
                return true;
            }
            at = (body_end + 3).min(content.len());
        }
        false
    }

    fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
        haystack
            .windows(needle.len())
            .position(|window| window == needle)
    }
}

mod pipe {
    const FETCHERS: &[&str] = &[
        "curl",
        "wget",
        "iwr",
        "irm",
        "invoke-webrequest",
        "invoke-restmethod",
    ];
    const RUNNERS: &[&str] = &[
        "sh",
        "bash",
        "zsh",
        "dash",
        "ksh",
        "fish",
        "python",
        "python3",
        "perl",
        "ruby",
        "node",
        "iex",
        "invoke-expression",
        "pwsh",
        "powershell",
    ];

    /// Whether any line of `content` pipes a download into an interpreter.
    pub fn has_piped_execution(content: &[u8]) -> bool {
        content
            .split(|&b| b == b'\n')
            .filter(|line| line.len() >= 6 && names_a_fetcher(line))
            .any(line_pipes_a_download)
    }

    /// A cheap pre-check without allocating: most lines name no download command at all.
    fn names_a_fetcher(line: &[u8]) -> bool {
        const NEEDLES: &[&[u8]] = &[b"curl", b"wget", b"iwr", b"irm", b"invoke-"];
        line.windows(3).enumerate().any(|(at, window)| {
            NEEDLES.iter().any(|needle| {
                window.eq_ignore_ascii_case(&needle[..3])
                    && line
                        .get(at..at + needle.len())
                        .is_some_and(|candidate| candidate.eq_ignore_ascii_case(needle))
            })
        })
    }

    fn line_pipes_a_download(line: &[u8]) -> bool {
        let lower = line.to_ascii_lowercase();
        let words = tokens(&lower);
        let Some(fetch_at) = words.iter().position(|w| is_one_of(strip(w), FETCHERS)) else {
            return false;
        };
        // `bash <(curl …)`, `sh -c "$(curl …)"`: the runner comes first.
        let before = &words[..fetch_at];
        let fetch = words[fetch_at];
        let substituted = fetch.starts_with(b"<(")
            || fetch.starts_with(b"$(")
            || before
                .iter()
                .any(|w| w.ends_with(b"<(") || w.ends_with(b"$("));
        if substituted && before.iter().any(|w| is_one_of(strip(w), RUNNERS)) {
            return true;
        }
        // `curl … | [sudo] [-E] [env] sh`: after a pipe, the first word that is not `sudo`,
        // `env` (as the program is, with its syntax and folder stripped: issue 27's
        // `/usr/bin/env`) or an option is the program the download runs in.
        let mut after_pipe = false;
        for word in &words[fetch_at + 1..] {
            match *word {
                b"|" => after_pipe = true,
                b"||" => after_pipe = false,
                _ if after_pipe
                    && (is_one_of(strip(word), &["sudo", "env"]) || word.starts_with(b"-")) => {}
                _ if after_pipe => {
                    if is_one_of(strip(word), RUNNERS) {
                        return true;
                    }
                    after_pipe = false;
                }
                _ => {}
            }
        }
        false
    }

    /// Words of a lowercased line; `|` and `||` are words of their own, so `x|sh` reads
    /// as `x`, `|`, `sh`.
    fn tokens(line: &[u8]) -> Vec<&[u8]> {
        let mut out = Vec::new();
        let mut start = None;
        let mut at = 0;
        while at < line.len() {
            let b = line[at];
            let word_byte = b.is_ascii_alphanumeric()
                || matches!(b, b'-' | b'_' | b'.' | b'/' | b'<' | b'(' | b'$');
            if word_byte {
                start.get_or_insert(at);
                at += 1;
                continue;
            }
            if let Some(begin) = start.take() {
                out.push(&line[begin..at]);
            }
            if b == b'|' {
                let len = if line.get(at + 1) == Some(&b'|') {
                    2
                } else {
                    1
                };
                out.push(&line[at..at + len]);
                at += len;
                continue;
            }
            at += 1;
        }
        if let Some(begin) = start {
            out.push(&line[begin..]);
        }
        out
    }

    /// A word without the syntax the split kept (`<(`, `$(`, a path to the program).
    fn strip(word: &[u8]) -> &[u8] {
        let word = word
            .strip_prefix(b"$(")
            .or_else(|| word.strip_prefix(b"<("))
            .unwrap_or(word);
        let word = word
            .strip_suffix(b"<(")
            .or_else(|| word.strip_suffix(b"$("))
            .unwrap_or(word);
        word.rsplit(|&b| b == b'/').next().unwrap_or(word)
    }

    fn is_one_of(word: &[u8], names: &[&str]) -> bool {
        names.iter().any(|name| name.as_bytes() == word)
    }
}
