//! Piped remote execution: a download command (`curl`, `wget`, `iwr`/`irm`,
//! `Invoke-WebRequest`/`Invoke-RestMethod`) and, later on the same line, a pipe into a
//! shell or interpreter (`sh`, `bash`, `zsh`, `python`, `node`, `iex`, `sudo sh`…).
//! `bash <(curl …)` and `sh -c "$(curl …)"` are the same thing spelled otherwise.
//! A line is the shell's: one continued with a trailing backslash goes on with the next
//! (`curl …\` then `| bash`), and `env` before the interpreter changes nothing.

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

/// Programs that run the next word as the command (`| sudo bash`, `| env bash`).
const PREFIXES: &[&str] = &["sudo", "env"];

/// Whether any line of `content` pipes a download into an interpreter.
///
/// Only a line with a `|` (the pipe) or a `(` (`<(…)`, `$(…)`) can, so the scan jumps
/// from one of those bytes to the next (a vectorised search) and examines just the
/// line around it, once; every other line is never looked at.
pub fn has_piped_execution(content: &[u8]) -> bool {
    let mut from = 0;
    while let Some(offset) = memchr::memchr2(b'|', b'(', &content[from..]) {
        let (start, end) = logical_line(content, from + offset);
        let line = &content[start..end];
        if line.len() >= 6 && names_a_fetcher(line) && line_pipes_a_download(line) {
            return true;
        }
        if end == content.len() {
            return false;
        }
        from = end + 1;
    }
    false
}

/// The bounds of the shell line around `at`: its text line, joined with the lines
/// before it that end in a backslash and the lines after while it does.
fn logical_line(content: &[u8], at: usize) -> (usize, usize) {
    let line_start = |at: usize| memchr::memrchr(b'\n', &content[..at]).map_or(0, |nl| nl + 1);
    let line_end =
        |at: usize| memchr::memchr(b'\n', &content[at..]).map_or(content.len(), |nl| at + nl);
    let mut start = line_start(at);
    while start > 0 && continued(&content[..start - 1]) {
        start = line_start(start - 1);
    }
    let mut end = line_end(at);
    while end < content.len() && continued(&content[..end]) {
        end = line_end(end + 1);
    }
    (start, end)
}

/// Whether the text before a newline ends in a line continuation (`\`, or `\` and `\r`).
fn continued(before_newline: &[u8]) -> bool {
    before_newline
        .strip_suffix(b"\r")
        .unwrap_or(before_newline)
        .ends_with(b"\\")
}

/// A cheap pre-check without allocating: most lines name no download command at all.
/// Every fetcher starts with `c`, `w` or `i` (either case), and that letter says which
/// needles to compare.
fn names_a_fetcher(line: &[u8]) -> bool {
    let at = |at: usize, needle: &[u8]| {
        line.get(at..at + needle.len())
            .is_some_and(|candidate| candidate.eq_ignore_ascii_case(needle))
    };
    line.iter().enumerate().any(|(i, byte)| match byte | 0x20 {
        b'c' => at(i, b"curl"),
        b'w' => at(i, b"wget"),
        b'i' => at(i, b"iwr") || at(i, b"irm") || at(i, b"invoke-"),
        _ => false,
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
    // `env` or an option is the program the download runs in.
    let mut after_pipe = false;
    for word in &words[fetch_at + 1..] {
        match *word {
            b"|" => after_pipe = true,
            b"||" => after_pipe = false,
            _ if after_pipe && (is_one_of(strip(word), PREFIXES) || word.starts_with(b"-")) => {}
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downloads_piped_into_an_interpreter_are_found() {
        for line in [
            "curl -fsSL https://get.example.sh | sh",
            "curl https://x | sudo bash",
            "curl https://x | sudo -E bash -s -- --yes",
            "wget -qO- https://x |bash",
            "wget -qO- https://x|python3 -",
            "iwr https://x | iex",
            "Invoke-WebRequest https://x | Invoke-Expression",
            "bash <(curl -s https://x)",
            "sh -c \"$(curl -fsSL https://x)\"",
            "curl https://x | /bin/sh",
        ] {
            assert!(has_piped_execution(line.as_bytes()), "{line}");
        }
    }

    /// Issue 27: `curl …\` continued onto `| bash` is one shell line.
    #[test]
    fn a_download_continued_with_a_backslash_onto_a_pipe_is_found() {
        for text in [
            "curl -fsSL https://x \\\n  | bash\n",
            "intro\ncurl -fsSL \\\n  https://x \\\r\n  | sh -s\nafter\n",
            "```sh\nwget -qO- https://x \\\n| sudo bash\n```\n",
        ] {
            assert!(has_piped_execution(text.as_bytes()), "{text:?}");
        }
        // Without the backslash the next line is another command.
        assert!(!has_piped_execution(b"curl -o x https://x\n| bash\n"));
    }

    /// Issue 27: `| env bash` and `| /usr/bin/env bash` run the download too.
    #[test]
    fn a_download_piped_through_env_into_an_interpreter_is_found() {
        for line in [
            "curl https://x | env bash",
            "curl https://x | /usr/bin/env bash -s",
            "curl https://x | sudo env sh",
        ] {
            assert!(has_piped_execution(line.as_bytes()), "{line}");
        }
        assert!(!has_piped_execution(b"curl https://x | env"));
    }

    #[test]
    fn downloads_saved_or_piped_elsewhere_are_not_flagged() {
        for line in [
            "curl -o install.sh https://x && less install.sh",
            "curl https://x | jq .name",
            "curl https://x || bash fallback.sh",
            "echo hi | bash",
            "the curl of a wave; bash the drum",
        ] {
            assert!(!has_piped_execution(line.as_bytes()), "{line}");
        }
    }
}
