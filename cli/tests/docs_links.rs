//! The book (docs/, built by mdBook from docs/SUMMARY.md) and README.md have no dead links: every
//! relative link names a file that exists and, with `#anchor`, a heading of that page (mdBook's
//! and GitHub's heading ids: lower case, spaces to `-`, other punctuation dropped); every page
//! under docs/ is in SUMMARY.md, so none is left out of the book.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Markdown pages: README.md, CHANGELOG.md and every `.md` under docs/.
fn pages() -> Vec<PathBuf> {
    let root = repository();
    let mut pages = vec![root.join("README.md"), root.join("CHANGELOG.md")];
    let mut folders = vec![root.join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

/// The id mdBook (and GitHub) give a heading with `text`.
fn heading_id(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The ids of `page`'s headings, numbered as mdBook numbers repeats (`name`, `name-1`, ...).
fn anchors(page: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut anchors = BTreeSet::new();
    let mut heading: Option<String> = None;
    for event in Parser::new_ext(&text, Options::all()) {
        match event {
            Event::Start(Tag::Heading { id, .. }) => {
                if let Some(id) = id {
                    anchors.insert(id.to_string());
                }
                heading = Some(String::new());
            }
            Event::Text(t) | Event::Code(t) if heading.is_some() => heading.as_mut().unwrap().push_str(&t),
            Event::End(TagEnd::Heading(_)) => {
                let id = heading_id(&heading.take().unwrap());
                let mut unique = id.clone();
                let mut n = 1;
                while !anchors.insert(unique.clone()) {
                    unique = format!("{id}-{n}");
                    n += 1;
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                // `<a id="x"></a>` and `<a name="x"></a>` anchors.
                for attribute in ["id=\"", "name=\""] {
                    for (at, _) in html.match_indices(attribute) {
                        let rest = &html[at + attribute.len()..];
                        anchors.insert(rest[..rest.find('"').unwrap_or(rest.len())].to_string());
                    }
                }
            }
            _ => {}
        }
    }
    anchors
}

/// Every link of `page` that stays in the repository: (target file, anchor).
fn local_links(page: &Path) -> Vec<(String, PathBuf, Option<String>)> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut links = Vec::new();
    for event in Parser::new_ext(&text, Options::all()) {
        let url = match event {
            Event::Start(Tag::Link { dest_url, .. }) | Event::Start(Tag::Image { dest_url, .. }) => dest_url,
            _ => continue,
        };
        if url.contains("://") || url.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match url.split_once('#') {
            Some((file, anchor)) => (file, Some(anchor.to_string())),
            None => (&*url, None),
        };
        let target = if file.is_empty() { page.to_path_buf() } else { page.parent().unwrap().join(file) };
        links.push((url.to_string(), target, anchor));
    }
    links
}

#[test]
fn every_link_of_the_docs_reaches_its_page_and_heading() {
    let root = repository();
    let mut dead = Vec::new();
    for page in pages() {
        let shown = page.strip_prefix(&root).unwrap().display().to_string();
        for (url, target, anchor) in local_links(&page) {
            if !target.exists() {
                dead.push(format!("{shown}: {url}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor
                && target.extension().is_some_and(|e| e == "md")
                && !anchors(&target).contains(&anchor)
            {
                dead.push(format!("{shown}: {url}: no heading #{anchor} in that page"));
            }
        }
    }
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

#[test]
fn every_docs_page_is_in_the_book() {
    let docs = repository().join("docs");
    let summary = docs.join("SUMMARY.md");
    let listed: BTreeSet<PathBuf> = local_links(&summary).into_iter().map(|(_, target, _)| target).collect();
    let left_out: Vec<String> = pages()
        .into_iter()
        .filter(|page| page.starts_with(&docs) && *page != summary && !listed.contains(page))
        .map(|page| page.strip_prefix(&docs).unwrap().display().to_string())
        .collect();
    assert!(left_out.is_empty(), "pages under docs/ that SUMMARY.md does not list: {left_out:?}");
}

#[test]
fn heading_ids_are_mdbooks() {
    assert_eq!(heading_id("Shipping the operator: image and Helm chart"), "shipping-the-operator-image-and-helm-chart");
    assert_eq!(heading_id("5. Deleting a version"), "5-deleting-a-version");
    assert_eq!(heading_id("`rop create api`"), "rop-create-api");
}
