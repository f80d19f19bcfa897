//! The bounds of a full-text search query: one rule for every service that takes a
//! query from a caller (discovery's `Search`, sync's feed `Search`) and for the store
//! itself, checked before any work. A query past them is refused naming the field
//! `query`; one within them becomes a list of words, each later searched as a literal
//! term, so the query's cost grows with its (bounded) number of distinct words.

/// The most bytes a query may have. A query is a few words a person or an agent types;
/// 4 KiB holds 64 words of 60 characters.
pub const MAX_QUERY_BYTES: usize = 4 * 1024;
/// The most words a query may have (letters and digits between separators, counted as
/// sent, repeats included).
pub const MAX_QUERY_WORDS: usize = 64;
/// The request field every refusal names.
pub const QUERY_FIELD: &str = "query";

/// Why a query is refused. The message never quotes the query.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryRefused {
    /// Empty, or only white space.
    #[error("is required")]
    Required,
    /// Longer than [`MAX_QUERY_BYTES`].
    #[error("is {bytes} bytes long; at most {MAX_QUERY_BYTES} are accepted")]
    TooLong {
        /// The query's length.
        bytes: usize,
    },
    /// More words than [`MAX_QUERY_WORDS`].
    #[error("has more than {MAX_QUERY_WORDS} words")]
    TooManyWords,
}

impl QueryRefused {
    /// The request field at fault (always `query`).
    pub fn field(&self) -> &'static str {
        QUERY_FIELD
    }
}

/// A query within the bounds: its distinct words, lowercase, in the order first sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    words: Vec<String>,
}

impl SearchQuery {
    /// Checks `text` against the bounds (bytes first, so a huge query costs nothing
    /// more than its length) and splits it into words: letters and digits; everything
    /// else separates them, so no caller text ever reaches a query syntax.
    pub fn parse(text: &str) -> Result<Self, QueryRefused> {
        if text.len() > MAX_QUERY_BYTES {
            return Err(QueryRefused::TooLong { bytes: text.len() });
        }
        if text.trim().is_empty() {
            return Err(QueryRefused::Required);
        }
        let sent = text
            .split(|character: char| !character.is_alphanumeric())
            .filter(|word| !word.is_empty());
        let mut words: Vec<String> = Vec::new();
        for (count, word) in sent.enumerate() {
            if count >= MAX_QUERY_WORDS {
                return Err(QueryRefused::TooManyWords);
            }
            // A repeated word adds nothing to an all-words match but would cost the
            // engine one more term to walk.
            let word = word.to_lowercase();
            if !words.contains(&word) {
                words.push(word);
            }
        }
        Ok(Self { words })
    }

    /// The distinct words (none when the query held only separators).
    pub fn words(&self) -> &[String] {
        &self.words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_bounds_refuse_before_any_work() {
        let at_bound_words = vec!["w"; MAX_QUERY_WORDS].join(" ");
        let past_bound_words = vec!["w"; MAX_QUERY_WORDS + 1].join(" ");
        let cases: [(String, Result<usize, QueryRefused>); 9] = [
            (String::new(), Err(QueryRefused::Required)),
            ("  \t ".into(), Err(QueryRefused::Required)),
            ("---".into(), Ok(0)),
            ("deploy the app".into(), Ok(3)),
            (at_bound_words, Ok(1)),
            (past_bound_words, Err(QueryRefused::TooManyWords)),
            ("a".repeat(MAX_QUERY_BYTES), Ok(1)),
            (
                "a".repeat(MAX_QUERY_BYTES + 1),
                Err(QueryRefused::TooLong {
                    bytes: MAX_QUERY_BYTES + 1,
                }),
            ),
            (
                "word ".repeat(50_000),
                Err(QueryRefused::TooLong { bytes: 250_000 }),
            ),
        ];
        for (text, expected) in cases {
            let got = SearchQuery::parse(&text).map(|query| query.words().len());
            assert_eq!(got, expected, "{:?}", &text[..text.len().min(40)]);
        }
    }

    #[test]
    fn a_refusal_names_the_query_field_and_never_quotes_it() {
        let secret = format!("{} ", "token-like-secret".repeat(300));
        let refused = SearchQuery::parse(&secret).expect_err("too long");
        assert_eq!(refused.field(), "query");
        assert!(!refused.to_string().contains("token"));
    }

    #[test]
    fn query_syntax_is_split_into_plain_words() {
        let words = |text: &str| SearchQuery::parse(text).expect("within bounds").words;
        assert_eq!(
            words("deploy AND (NOT x*) \"quoted\" NEAR(a b, 2) col:term ^start"),
            [
                "deploy", "and", "not", "x", "quoted", "near", "a", "b", "2", "col", "term",
                "start"
            ]
        );
        assert_eq!(words(&"(a+)+$ ".repeat(10)), ["a"]);
        assert_eq!(words("Ünïcode ÜNÏCODE straße"), ["ünïcode", "straße"]);
    }
}
