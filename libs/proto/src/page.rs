//! Pagination of a list answer (`page_size`, `page_token`, `next_page_token`), as a pure
//! function over the whole answer the service computed for this caller: a token only
//! ever points into what the caller may already see, so a forged token reveals nothing.
//!
//! The token is opaque to clients: the position after the last item returned and that
//! item's key, hex-encoded. The next page resumes after the item with that key when it is
//! still listed (items inserted or removed before it do not shift the page), at the
//! position otherwise. `page_size` 0 answers everything (what clients written before
//! pagination expect); at most [`MAX_PAGE_SIZE`] items a page otherwise.

/// The largest page; a bigger `page_size` is clamped to it.
pub const MAX_PAGE_SIZE: usize = 1000;

/// A bad `page_size` or `page_token`: the field and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageError {
    /// `page_size` or `page_token`.
    pub field: &'static str,
    /// What is wrong with it.
    pub message: &'static str,
}

/// The page of `items` that `page_size` and `page_token` ask for, and the token of the
/// next page (empty on the last). `key` names an item uniquely within the list.
pub fn page<T>(
    items: Vec<T>,
    page_size: i32,
    page_token: &str,
    key: impl Fn(&T) -> &str,
) -> Result<(Vec<T>, String), PageError> {
    let size = usize::try_from(page_size).map_err(|_| PageError {
        field: "page_size",
        message: "must not be negative",
    })?;
    // A token this module issued is never longer; a longer one is refused unread.
    if page_token.len() > crate::bounds::MAX_PAGE_TOKEN_BYTES {
        return Err(PageError {
            field: "page_token",
            message: "is not a token this service issued",
        });
    }
    let start = if page_token.is_empty() {
        0
    } else {
        let (position, last) = decode(page_token).ok_or(PageError {
            field: "page_token",
            message: "is not a token this service issued",
        })?;
        match items.iter().position(|item| key(item) == last) {
            Some(index) => index + 1,
            None => position.min(items.len()),
        }
    };
    let size = if size == 0 {
        usize::MAX
    } else {
        size.min(MAX_PAGE_SIZE)
    };
    let end = start.saturating_add(size).min(items.len());
    let next = if end < items.len() && end > start {
        encode(end, key(&items[end - 1]))
    } else {
        String::new()
    };
    let page = items.into_iter().skip(start).take(end - start).collect();
    Ok((page, next))
}

fn encode(position: usize, key: &str) -> String {
    let hex: String = key.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{position}.{hex}")
}

fn decode(token: &str) -> Option<(usize, String)> {
    let (position, hex) = token.split_once('.')?;
    let position = position.parse().ok()?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some((position, String::from_utf8(bytes).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("item-{i:03}")).collect()
    }

    fn walk(items: &[String], size: i32) -> Vec<Vec<String>> {
        let mut pages = Vec::new();
        let mut token = String::new();
        loop {
            let (page, next) = page(items.to_vec(), size, &token, |s| s.as_str()).unwrap();
            pages.push(page);
            if next.is_empty() {
                return pages;
            }
            token = next;
        }
    }

    #[test]
    fn paging_through_answers_every_item_once_in_order() {
        for (n, size) in [(0, 1), (1, 1), (5, 2), (6, 2), (7, 3), (10, 10), (10, 11)] {
            let items = names(n);
            let pages = walk(&items, size);
            assert_eq!(pages.concat(), items, "n={n} size={size}");
            assert!(pages.iter().all(|p| p.len() <= size as usize));
        }
    }

    #[test]
    fn page_size_zero_answers_everything_and_a_big_one_is_clamped() {
        let (all, next) = page(names(5), 0, "", |s| s.as_str()).unwrap();
        assert_eq!((all.len(), next.as_str()), (5, ""));
        let (first, next) = page(names(MAX_PAGE_SIZE + 5), i32::MAX, "", |s| s.as_str()).unwrap();
        assert_eq!(first.len(), MAX_PAGE_SIZE);
        assert!(!next.is_empty());
    }

    #[test]
    fn an_item_inserted_before_the_token_does_not_shift_the_next_page() {
        let items = names(6);
        let (_, token) = page(items.clone(), 2, "", |s| s.as_str()).unwrap();
        let mut grown = items.clone();
        grown.insert(0, "item-aaa-first".into());
        let (next, _) = page(grown, 2, &token, |s| s.as_str()).unwrap();
        assert_eq!(next, items[2..4]);
    }

    #[test]
    fn a_bad_size_or_token_names_its_field() {
        let cases = [
            (-1, "", "page_size"),
            (1, "garbage", "page_token"),
            (1, "1.zz", "page_token"),
        ];
        for (size, token, field) in cases {
            let error = page(names(3), size, token, |s| s.as_str()).unwrap_err();
            assert_eq!(error.field, field);
        }
    }
}
