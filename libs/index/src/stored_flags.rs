//! Content flags as a row stores them: their names joined by commas (names hold no
//! comma), empty for none. Both the SQL codec and the listing's raw pages read them.

pub(crate) fn encode_flags(flags: &[String]) -> String {
    flags.join(",")
}

pub(crate) fn decode_flags(text: &str) -> Vec<String> {
    text.split(',')
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}
