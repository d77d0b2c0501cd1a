//! A generated project holds its author's logic and little else. Counted as the runtime issue
//! counts it (non-blank lines that are not `//` comments, outside `#[cfg(test)]` modules), the
//! golden trees stay within the budget: `src/` of `init` plus one `create api` at most 350
//! lines, `src/main.rs` 40, a plain controller 60, the deploy-image controller 200
//! (kubebuilder's scaffold: `cmd/main.go` 203, a plain controller 35, deploy-image 261).

mod common;

use std::path::Path;

/// The counted lines of one Rust file (see the module docs).
fn count(text: &str) -> usize {
    let (mut kept, mut depth, mut skipping, mut pending) = (0, 0i64, false, false);
    for line in text.lines() {
        let trimmed = line.trim();
        let braces = line.matches('{').count() as i64 - line.matches('}').count() as i64;
        if skipping {
            depth += braces;
            skipping = depth > 0;
            continue;
        }
        if trimmed.starts_with("#[cfg(test)]") {
            pending = true;
            continue;
        }
        if pending && (trimmed.starts_with("mod ") || trimmed.starts_with("pub mod ")) {
            pending = false;
            if !trimmed.ends_with(';') {
                (skipping, depth) = (true, braces);
            }
            continue;
        }
        pending = false;
        if !trimmed.is_empty() && !trimmed.starts_with("//") {
            kept += 1;
        }
    }
    kept
}

/// The counted lines of every `.rs` file under `dir`.
fn count_dir(dir: &Path) -> usize {
    let mut total = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            total += count_dir(&path);
        } else if path.extension().is_some_and(|e| e == "rs") {
            total += count(&std::fs::read_to_string(&path).unwrap());
        }
    }
    total
}

fn file(tree: &str, path: &str) -> usize {
    count(&std::fs::read_to_string(common::testdata().join("golden").join(tree).join(path)).unwrap())
}

#[test]
fn the_counter_leaves_out_comments_blank_lines_and_test_modules() {
    let text = "//! Docs.\n\nfn a() {\n    // why\n    b();\n}\n\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n";
    assert_eq!(count(text), 3);
}

#[test]
fn generated_code_stays_within_the_budget() {
    let src = count_dir(&common::testdata().join("golden/create-api/src"));
    let (main, plain) = (file("create-api", "src/main.rs"), file("create-api", "src/controller/memcached.rs"));
    let image = file("create-api-deploy-image", "src/controller/memcached.rs");
    let stateful = file("create-api-statefulset", "src/controller/redis.rs");
    println!(
        "src/ of init + create api: {src}; main.rs: {main}; plain controller: {plain}; deploy-image: {image}; statefulset: {stateful}"
    );
    assert!(src <= 350, "src/ of init + one create api: {src} lines");
    assert!(main <= 40, "src/main.rs: {main} lines");
    assert!(plain <= 60, "a plain controller: {plain} lines");
    // The workloads' machinery is rop::workload's: what stays is the spec → objects mapping.
    assert!(image <= 120, "the deploy-image controller: {image} lines");
    assert!(stateful <= 150, "the StatefulSet controller: {stateful} lines");
}
