//! The `<packages>` overview within a token budget (issue 30).
//!
//! Agent tools pay the whole catalog in every prompt; a caller that gives a budget gets
//! the overview that fits it, by these rules, in this order:
//!
//! 1. **Always-on content is never dropped**: the block's own tags, every active
//!    prompt-injected entry (rules, instructions, agents — their bodies are in the prompt
//!    anyway) and the text the caller renders after the block (the `<data_areas>`
//!    rows). When they alone exceed the budget the call fails, naming the minimum.
//! 2. **Descriptions are shortened before any entry is dropped**: every other entry first
//!    shows a description cut to [`crate::overview`]'s short length and a skill's bundle
//!    as its size (`[files: 12]`); then, most useful first, entries get their full line
//!    back while it fits.
//! 3. **Entries are dropped least useful first**: docs (read on demand), then commands,
//!    then skills; within a kind, from the end of the overview (installed packages come
//!    before sources). A package whose entries are all dropped loses its block.
//! 4. **One line says what was left out** and how to find it (search).
//!
//! Tokens are counted by a [`TokenCount`]; the service uses [`O200k`]. The fitted text is
//! counted whole before it is returned, so the budget holds even where a tokenizer is
//! not additive over lines.

use crate::overview::{self, Detail};
use crate::view::{FileState, FileView, PackageView};

/// Counts the tokens of a text.
pub trait TokenCount {
    /// The number of tokens `text` encodes to.
    fn tokens(&self, text: &str) -> usize;
}

/// Tokens as OpenAI's `o200k_base` encoding counts them (the `tiktoken-rs` crate): a
/// real BPE count, close to what other models' tokenizers count for English markdown.
#[derive(Debug, Clone, Copy, Default)]
pub struct O200k;

impl TokenCount for O200k {
    fn tokens(&self, text: &str) -> usize {
        tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(text)
            .len()
    }
}

/// An overview fitted to a budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    /// The `<packages>` block.
    pub text: String,
    /// Its tokens, counted whole.
    pub tokens: usize,
    /// Listed entries that are not in the block.
    pub left_out: usize,
}

/// A budget the overview cannot fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BudgetError {
    /// The always-on content (and the line saying what was left out) alone exceed it.
    #[error("is {budget} tokens; this overview's always-on content needs at least {minimum}")]
    BelowAlwaysOn { budget: usize, minimum: usize },
}

/// Renders the `<packages>` block of `packages`, then `always` (always-on text the
/// caller renders after it, such as the `<data_areas>` block), within `budget` tokens.
pub fn render_overview_within(
    packages: &[PackageView],
    always: &str,
    budget: usize,
    counter: &impl TokenCount,
) -> Result<Fitted, BudgetError> {
    let mut plan = Plan::new(packages, always, counter);
    if plan.fits(budget)
        && let Some(fitted) = plan.checked(budget)
    {
        return Ok(fitted);
    }
    plan.shorten_all();
    if plan.fits(budget) {
        plan.restore_while_fits(budget);
    } else {
        plan.drop_until_fits(budget)?;
    }
    loop {
        if let Some(fitted) = plan.checked(budget) {
            return Ok(fitted);
        }
        // The whole counted more than its lines: give up one more entry.
        if !plan.drop_one() {
            return Err(plan.too_small(budget));
        }
    }
}

/// One listed entry and what each way of showing it costs.
struct Entry<'a> {
    block: usize,
    file: &'a FileView,
    always: bool,
    full: usize,
    short: usize,
    shown: Option<Detail>,
}

impl Entry<'_> {
    fn cost(&self) -> usize {
        match self.shown {
            Some(Detail::Full) => self.full,
            Some(Detail::Short) => self.short,
            None => 0,
        }
    }
}

/// One package's block: its tags' cost and how many entries it shows.
struct Block<'a> {
    package: &'a PackageView,
    tags: usize,
    shown: usize,
}

struct Plan<'a, C> {
    counter: &'a C,
    /// Always-on text after the block.
    always: &'a str,
    frame: usize,
    blocks: Vec<Block<'a>>,
    entries: Vec<Entry<'a>>,
    /// The optional entries, most useful first.
    priority: Vec<usize>,
    /// How many of `priority` (from its end) are dropped.
    dropped: usize,
    /// Tokens of the shown lines and blocks, the frame included.
    sum: usize,
}

impl<'a, C: TokenCount> Plan<'a, C> {
    fn new(packages: &'a [PackageView], always: &'a str, counter: &'a C) -> Self {
        let frame = counter.tokens(overview::OPEN)
            + counter.tokens(overview::CLOSE)
            + counter.tokens(always);
        let mut plan = Plan {
            counter,
            always,
            frame,
            blocks: Vec::new(),
            entries: Vec::new(),
            priority: Vec::new(),
            dropped: 0,
            sum: frame,
        };
        for package in packages {
            let listed: Vec<&FileView> = package
                .files
                .iter()
                .filter(|f| overview::is_listed(f))
                .collect();
            if listed.is_empty() {
                continue;
            }
            let block = plan.blocks.len();
            let tags = counter.tokens(&overview::package_open(package))
                + counter.tokens(overview::PACKAGE_CLOSE);
            plan.blocks.push(Block {
                package,
                tags,
                shown: 0,
            });
            for file in listed {
                let full = line_tokens(counter, file, Detail::Full);
                let short = line_tokens(counter, file, Detail::Short).min(full);
                plan.entries.push(Entry {
                    block,
                    file,
                    always: is_always_on(file),
                    full,
                    short,
                    shown: None,
                });
                plan.show(plan.entries.len() - 1, Some(Detail::Full));
            }
        }
        plan.priority = (0..plan.entries.len())
            .filter(|&i| !plan.entries[i].always)
            .collect();
        plan.priority
            .sort_by_key(|&i| (usefulness(plan.entries[i].file), i));
        plan
    }

    /// Shows entry `i` as `detail` (`None`: not at all), keeping the sums.
    fn show(&mut self, i: usize, detail: Option<Detail>) {
        let before = self.entries[i].cost();
        let was_shown = self.entries[i].shown.is_some();
        self.entries[i].shown = detail;
        let block = &mut self.blocks[self.entries[i].block];
        match (was_shown, detail.is_some()) {
            (false, true) => {
                if block.shown == 0 {
                    self.sum += block.tags;
                }
                block.shown += 1;
            }
            (true, false) => {
                block.shown -= 1;
                if block.shown == 0 {
                    self.sum -= block.tags;
                }
            }
            _ => {}
        }
        self.sum = self.sum - before + self.entries[i].cost();
    }

    fn left_out(&self) -> usize {
        self.dropped
    }

    fn total(&self) -> usize {
        self.sum + self.trailer_tokens(self.left_out())
    }

    fn fits(&self, budget: usize) -> bool {
        self.total() <= budget
    }

    fn shorten_all(&mut self) {
        for k in 0..self.priority.len() - self.dropped {
            self.show(self.priority[k], Some(Detail::Short));
        }
    }

    /// Gives the most useful entries their full line back while the budget allows.
    fn restore_while_fits(&mut self, budget: usize) {
        for k in 0..self.priority.len() - self.dropped {
            let i = self.priority[k];
            let extra = self.entries[i].full - self.entries[i].short;
            if self.total() + extra <= budget {
                self.show(i, Some(Detail::Full));
            }
        }
    }

    fn drop_until_fits(&mut self, budget: usize) -> Result<(), BudgetError> {
        while !self.fits(budget) {
            if !self.drop_one() {
                return Err(self.too_small(budget));
            }
        }
        Ok(())
    }

    /// Drops the least useful entry still shown; false when none is left.
    fn drop_one(&mut self) -> bool {
        if self.dropped == self.priority.len() {
            return false;
        }
        self.dropped += 1;
        let i = self.priority[self.priority.len() - self.dropped];
        self.show(i, None);
        true
    }

    fn too_small(&self, budget: usize) -> BudgetError {
        let always: usize = self
            .entries
            .iter()
            .filter(|e| e.always)
            .map(|e| e.full)
            .sum();
        let blocks: usize = self
            .blocks
            .iter()
            .enumerate()
            .filter(|(b, _)| self.entries.iter().any(|e| e.always && e.block == *b))
            .map(|(_, block)| block.tags)
            .sum();
        BudgetError::BelowAlwaysOn {
            budget,
            minimum: self.frame + always + blocks + self.trailer_tokens(self.priority.len()),
        }
    }

    /// The rendered plan, when its whole count is within the budget.
    fn checked(&self, budget: usize) -> Option<Fitted> {
        let text = self.render();
        let tokens = self.counter.tokens(&text);
        (tokens <= budget).then_some(Fitted {
            text,
            tokens,
            left_out: self.left_out(),
        })
    }

    fn render(&self) -> String {
        let mut out = String::from(overview::OPEN);
        let mut entries = self.entries.iter().peekable();
        for (b, block) in self.blocks.iter().enumerate() {
            let mine = std::iter::from_fn(|| entries.next_if(|e| e.block == b));
            let shown: Vec<String> = mine
                .filter_map(|e| e.shown.map(|detail| overview::line(e.file, detail)))
                .collect();
            if block.shown == 0 {
                continue;
            }
            out.push_str(&overview::package_open(block.package));
            for line in shown {
                out.push_str(&line);
                out.push('\n');
            }
            out.push_str(overview::PACKAGE_CLOSE);
        }
        if let Some(trailer) = trailer(self.left_out()) {
            out.push_str(&trailer);
        }
        out.push_str(overview::CLOSE);
        out.push_str(self.always);
        out
    }

    fn trailer_tokens(&self, left_out: usize) -> usize {
        trailer(left_out).map_or(0, |line| self.counter.tokens(&line))
    }
}

/// Active prompt-injected entries: their bodies are in the prompt already, and an agent
/// must be able to name them.
fn is_always_on(file: &FileView) -> bool {
    file.state == FileState::Active && file.category.is_prompt_injected()
}

/// Lower is more useful: skills (activated on demand, the overview is how an agent
/// finds them), then commands, then docs and anything else read on demand.
fn usefulness(file: &FileView) -> u8 {
    use neuralis_layout::Category;
    match (file.category, file.state) {
        (Category::Skill, FileState::Active) => 0,
        (Category::Command, FileState::Active) => 1,
        _ => 2,
    }
}

fn line_tokens(counter: &impl TokenCount, file: &FileView, detail: Detail) -> usize {
    let mut line = overview::line(file, detail);
    line.push('\n');
    counter.tokens(&line)
}

/// The line that says what was left out, when anything was.
fn trailer(left_out: usize) -> Option<String> {
    let noun = if left_out == 1 { "entry" } else { "entries" };
    (left_out > 0).then(|| {
        format!("- … {left_out} more {noun} left out to fit the budget: search the packages to find them\n")
    })
}
