//! `rop delete webhook`: removes what `rop create webhook` added for a kind version — the
//! defaulter, validator or conversion code (if unchanged since rop wrote it, or with `--force`
//! for whole files), the registrations, the attributes, the manifests' pieces that no other
//! webhook needs, and the PROJECT record.

use std::collections::HashSet;
use std::path::Path;

use anyhow::bail;

use super::args::KindArgs;
use crate::project::{self, Project, Webhooks};
use crate::rust_source;
use crate::scaffold::kind::KindNames;
use crate::scaffold::markers;
use crate::scaffold::plan::{self, Change, IfExists, Plan};
use crate::scaffold::resource::{self, ApiOptions};
use crate::scaffold::templates::Templates;
use crate::scaffold::webhook::{self, AttributeTarget};
use crate::ui;

/// Flags of `rop delete webhook`.
#[derive(Debug, clap::Args)]
#[command(
    mut_arg("version", |a| a.help("API version, e.g. `v1`")),
    // `mut_arg` moves an argument to the end of the usage line: the next one too, to keep the order.
    mut_arg("kind", |a| a),
    after_help = "Example:
  rop delete webhook --group cache --version v1 --kind Memcached --defaulting

Example, every webhook of the kind version:
  rop delete webhook --group cache --version v1 --kind Memcached")]
pub struct DeleteWebhookArgs {
    #[command(flatten)]
    pub api: KindArgs,
    /// Delete the defaulting webhook.
    #[arg(long)]
    pub defaulting: bool,
    /// Delete the validating webhook.
    #[arg(long)]
    pub programmatic_validation: bool,
    /// Delete the conversion webhook and its spokes' conversions.
    #[arg(long)]
    pub conversion: bool,
    /// With --conversion: delete only these spokes' conversions (comma-separated or
    /// repeated); the webhook stays for the others. All of them is the whole webhook.
    #[arg(long, value_delimiter = ',', requires = "conversion", value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub spoke: Vec<String>,
    /// Delete files even if they were edited since rop wrote them.
    #[arg(long)]
    pub force: bool,
    /// Print what would be deleted or changed, and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// The webhook types to delete: those asked for, or all the kind version has.
fn chosen(args: &DeleteWebhookArgs, has: &Webhooks) -> anyhow::Result<Webhooks> {
    let all = !args.defaulting && !args.programmatic_validation && !args.conversion;
    let mut gone = Webhooks { webhook_version: has.webhook_version.clone(), ..Webhooks::default() };
    for (asked, present, slot, which) in [
        (args.defaulting, has.defaulting, &mut gone.defaulting, "defaulting"),
        (args.programmatic_validation, has.validation, &mut gone.validation, "validating"),
        (args.conversion, has.conversion, &mut gone.conversion, "conversion"),
    ] {
        if asked && !present {
            bail!("{}/{} {} has no {which} webhook to delete", args.api.group, args.api.version, args.api.kind);
        }
        *slot = present && (asked || all);
    }
    if gone.conversion {
        if args.spoke.contains(&args.api.version) {
            bail!(
                "--spoke {}: that is the hub of the conversion webhook, not a spoke; the spokes are {} (without --spoke the whole webhook goes)",
                args.api.version,
                has.spoke.join(", ")
            );
        }
        if let Some(other) = args.spoke.iter().find(|v| !has.spoke.contains(v)) {
            bail!(
                "--spoke {other}: the conversion webhook of {}/{} {} converts {}, not {other}",
                args.api.group,
                args.api.version,
                args.api.kind,
                has.spoke.join(", ")
            );
        }
        gone.spoke = if args.spoke.is_empty() { has.spoke.clone() } else { args.spoke.clone() };
        gone.spoke.dedup();
    }
    if gone.defaulting {
        gone.defaulting_path = has.defaulting_path.clone();
    }
    if gone.validation {
        gone.validation_path = has.validation_path.clone();
    }
    Ok(gone)
}

/// `text` without the `#[rop(webhook(mutating ...))]` (or `validating`) attribute of the type
/// `anchor` declares (the spec type, or a built-in kind's marker type), as `create webhook`
/// wrote it, with more settings, or wrapped over several lines; unchanged when the type has no
/// such attribute any more. Everything else stays byte for byte as it was.
///
/// # Errors
/// The file does not parse, has no such type, sets the webhook inside an attribute with other
/// settings (only the user can take the entry out of it), or has it twice.
fn remove_attribute(target: &AttributeTarget, text: &str, attribute: &str) -> anyhow::Result<String> {
    let (path, anchor) = (&target.file, &target.declaration);
    let which = if attribute.contains("mutating") { "mutating" } else { "validating" };
    let found = rust_source::type_attributes(text, &target.type_name).map_err(|e| {
        anyhow::anyhow!(
            "{path} does not parse as Rust{}: {e}: fix it, then run the command again",
            rust_source::error_place(&e)
        )
    })?;
    let Some(found) = found else {
        bail!(
            "{path} has no `{anchor}` line: remove the {which} webhook's attribute yourself, then run the command again"
        );
    };
    let matching: Vec<&rust_source::WebhookAttribute> = found.webhooks.iter().filter(|w| w.which == which).collect();
    match matching[..] {
        [] => Ok(text.to_string()),
        [w] if w.alone => {
            let out = rust_source::without_attribute(text, w);
            if syn::parse_file(&out).is_err() {
                bail!(
                    "{path}: removing the {which} webhook's attribute (line {}) would leave the file unparsable: remove it yourself, then run the command again",
                    w.first + 1
                );
            }
            Ok(out)
        }
        [w] => bail!(
            "{path}: the {which} webhook is set inside an attribute with other settings (line {}), above `{anchor}`: take just its `webhook({which}, ...)` entry out of that attribute, then run the command again",
            w.first + 1
        ),
        _ => bail!(
            "{path}: `{anchor}` has {} `webhook({which}, ...)` settings: keep one, then run the command again",
            matching.len()
        ),
    }
}

/// The line that names a fragment of rop's code in a message: its first line of code, not a
/// comment or an attribute (`async fn memcached_v2_round_trips_through_the_hub()`).
fn headline(fragment: &str) -> &str {
    let code = |l: &&str| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with("//") && !l.starts_with("#[")
    };
    fragment.lines().find(code).unwrap_or("").trim().trim_end_matches('{').trim_end()
}

/// Where `on_disk` differs from `written` (what rop wrote), in `on_disk`'s line numbers: "line
/// 12", "lines 12-14", "lines 3 and 12-14".
fn differing_lines(written: &str, on_disk: &str) -> String {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for op in similar::TextDiff::from_lines(written, on_disk).ops() {
        let changed = op.new_range();
        let (first, last) = match op.tag() {
            similar::DiffTag::Equal => continue,
            // Lines only rop wrote: the place is the line before the gap.
            similar::DiffTag::Delete => (changed.start.max(1), changed.start.max(1)),
            _ => (changed.start + 1, changed.end),
        };
        match ranges.last_mut() {
            Some(previous) if first <= previous.1 + 1 => previous.1 = previous.1.max(last),
            _ => ranges.push((first, last)),
        }
    }
    let words: Vec<String> =
        ranges.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") }).collect();
    let single = ranges.len() == 1 && ranges[0].0 == ranges[0].1;
    let listed = match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => words.concat(),
    };
    format!("{} {listed} {}", if single { "line" } else { "lines" }, if single { "differs" } else { "differ" })
}

/// Runs `rop delete webhook` in the project at `root`.
///
/// # Errors
/// Outside a project, a kind version without the webhooks asked for, code edited since rop
/// wrote it (without `--force`: one error naming every edited file and where it differs), or a
/// failed write; in every case nothing is changed on disk.
pub fn run(root: &Path, args: &DeleteWebhookArgs) -> anyhow::Result<()> {
    let mut project = Project::load(root)?;
    let Some(index) = project.position(&args.api.group, &args.api.version, &args.api.kind) else {
        bail!("PROJECT has no API {}/{} {}", args.api.group, args.api.version, args.api.kind);
    };
    let Some(has) = project.resources[index].webhooks.clone() else {
        // A spoke's conversion is recorded with the hub's webhooks.
        let hub = project.resources.iter().find(|r| {
            r.group == args.api.group
                && r.kind == args.api.kind
                && r.webhooks.as_ref().is_some_and(|w| w.conversion && w.spoke.contains(&args.api.version))
        });
        if let Some(hub) = hub {
            bail!(
                "{}/{} {} has no webhooks of its own: its conversion is part of the conversion webhook of the hub, {}; delete it with `rop delete webhook --group {} --version {} --kind {} --conversion --spoke {}`",
                args.api.group,
                args.api.version,
                args.api.kind,
                hub.version,
                args.api.group,
                hub.version,
                args.api.kind,
                args.api.version
            );
        }
        bail!(
            "{}/{} {} has no webhooks in PROJECT: nothing to delete",
            args.api.group,
            args.api.version,
            args.api.kind
        );
    };
    let gone = chosen(args, &has)?;
    let k = KindNames::of(&project, &project.resources[index]);
    let templates = Templates::load(root)?;
    let header = resource::header_of(root);
    let scaffold = webhook::describe(&project, &k, &gone, &templates, &header)?;

    // What stays: the remaining types of this kind version and every other webhook.
    let mut left = has.clone();
    left.defaulting &= !gone.defaulting;
    left.validation &= !gone.validation;
    if gone.conversion {
        left.spoke.retain(|v| !gone.spoke.contains(v));
        // With its last spoke the conversion webhook goes.
        left.conversion = !left.spoke.is_empty();
    }
    left.defaulting_path = left.defaulting_path.filter(|_| left.defaulting);
    left.validation_path = left.validation_path.filter(|_| left.validation);
    let core = project.resources[index].core;
    if core && left.is_empty() && !project.resources[index].controller {
        // A built-in kind without a controller is in PROJECT for its webhooks only.
        project.resources.remove(index);
    } else {
        project.resources[index].webhooks = (!left.is_empty()).then_some(left);
    }
    let mut needed_files = HashSet::new();
    let mut needed = HashSet::new();
    for r in &project.resources {
        let other = KindNames::of(&project, r);
        if let Some(w) = &r.webhooks {
            let s = webhook::describe(&project, &other, w, &templates, &header)?;
            needed_files.extend(s.files.into_iter().map(|f| f.path));
            needed.extend(s.inserts.into_iter().map(|i| (i.path, i.fragment)));
        }
        if r.core && r.controller {
            // A built-in kind's controller keeps the marker type, and the file it is in.
            let s = resource::describe(&project, &other, &ApiOptions::of(r, &header));
            needed_files.extend(s.files.into_iter().map(|f| f.path));
            needed.extend(s.inserts.into_iter().map(|i| (i.path, i.fragment)));
        }
    }

    let mut plan = Plan::new(root);
    // The attributes first: a built-in kind's block in api/src/builtin.rs is rop's fragment
    // again once they are out of it.
    let target = AttributeTarget::of(&k, core);
    for attribute in &scaffold.attributes {
        if let Some(current) = plan.current(&target.file)? {
            plan.file(&target.file, remove_attribute(&target, &current, attribute)?, IfExists::Overwrite);
        }
    }
    let module_file = format!("src/webhook/{}.rs", k.webhook_module());
    // Code the user wrote where rop's was: every place is named before anything changes.
    let mut refusals: Vec<String> = Vec::new();
    // Edited code left in place with --force: its file, its first line, and whether it is a test.
    let mut kept: Vec<(String, String, bool)> = Vec::new();
    // A defaulter or validator kept with --force keeps the `use` lines its code names, so the
    // module still compiles.
    let module_text = plan.current(&module_file)?;
    let keeps_edited_impl = args.force
        && needed_files.contains(&module_file)
        && module_text.as_deref().is_some_and(|text| {
            scaffold.inserts.iter().any(|i| {
                i.path == module_file && i.marker == "webhook-impls" && markers::remove(text, &i.fragment) == text
            })
        });
    for i in &scaffold.inserts {
        if needed.contains(&(i.path.clone(), i.fragment.clone()))
            || (keeps_edited_impl && i.path == module_file && i.marker == "webhook-uses")
        {
            continue;
        }
        let Some(current) = plan.current(&i.path)? else { continue };
        let removed = markers::remove(&current, &i.fragment);
        if removed == current && i.path == module_file && !needed_files.contains(&module_file) {
            // The whole module goes (refused below if it was edited, unless --force).
            continue;
        }
        if removed == current && i.path.ends_with(".rs") && !i.fragment.trim().is_empty() {
            if args.force {
                // The code was edited: it stays, unregistered, for the user to remove or reuse.
                kept.push((i.path.clone(), headline(&i.fragment).to_string(), i.fragment.contains("#[tokio::test]")));
                continue;
            }
            // --force comments out what names the deleted module, and leaves the rest.
            let names_module = i.path != module_file
                && !needed_files.contains(&module_file)
                && i.fragment.contains(&format!("{}::", k.webhook_module()));
            refusals.push(format!(
                "{}: the code rop wrote as `{}` was edited (--force {})",
                i.path,
                headline(&i.fragment),
                if names_module { "comments out its lines that name the deleted module" } else { "leaves it in place" }
            ));
            continue;
        }
        plan.file(&i.path, removed, IfExists::Overwrite);
    }
    let mut deleted_edits: Vec<String> = Vec::new();
    for f in scaffold.files.iter().filter(|f| !needed_files.contains(&f.path)) {
        let Some(planned) = plan.current(&f.path)? else { continue };
        let content = f.render(&templates)?;
        // A file is rop's own if its code is the template's once the fragments of the types
        // deleted are out of it (the planned edits above); then what is on disk may go.
        let on_disk = std::fs::read_to_string(root.join(&f.path)).unwrap_or_default();
        if !markers::same_code(&planned, &content) && on_disk != content {
            if args.force {
                deleted_edits.push(f.path.clone());
            } else {
                // What rop wrote: the file with the fragments of the webhooks being deleted.
                let written = scaffold
                    .inserts
                    .iter()
                    .filter(|i| i.path == f.path)
                    .try_fold(content.clone(), |text, i| markers::insert(&i.path, &text, &i.marker, &i.fragment));
                refusals.push(format!(
                    "{}: {} from what rop wrote (--force deletes the file)",
                    f.path,
                    differing_lines(&written.unwrap_or_else(|_| content.clone()), &on_disk)
                ));
            }
        }
        plan.remove(&f.path, None);
    }
    if !refusals.is_empty() {
        bail!(
            "rop delete webhook would lose code you wrote, so nothing was changed:\n{}\nMove that code elsewhere or undo the edits, then run the command again; or pass --force",
            refusals.iter().map(|r| format!("  {r}")).collect::<Vec<_>>().join("\n")
        );
    }
    // Edited lines left in place that name the module about to be deleted would not compile
    // (a registration changed by hand): they are commented out, each one named.
    let mut commented: Vec<(String, usize, String)> = Vec::new();
    if !needed_files.contains(&module_file) && root.join(&module_file).is_file() {
        let module = k.webhook_module();
        let paths: Vec<String> = kept.iter().map(|(path, _, _)| path.clone()).filter(|p| *p != module_file).collect();
        for path in paths {
            let Some(current) = plan.current(&path)? else { continue };
            let (text, lines) = comment_out_uses(&current, &module);
            if !lines.is_empty() {
                plan.file(&path, text, IfExists::Overwrite);
                kept.retain(|(p, code, _)| *p != path || !code.contains(&format!("{module}::")));
                commented.extend(lines.into_iter().map(|(n, line)| (path.clone(), n, line)));
            }
        }
    }
    // The webhook manifests go with the last admission webhook.
    let any_admission =
        project.resources.iter().filter_map(|r| r.webhooks.as_ref()).any(|w| w.defaulting || w.validation);
    let manifests = rop::manifests::WEBHOOK_MANIFESTS;
    if !any_admission && root.join(manifests).is_file() {
        plan.remove(manifests, None);
    }
    // The RBAC `rop generate` wrote for self-managed certificates goes with the last webhook,
    // as the rest of config/webhook-self-managed does.
    let any_webhook = project.resources.iter().any(|r| r.webhooks.is_some());
    let roles = rop::manifests::WEBHOOK_CERT_ROLES;
    if !any_webhook && root.join(roles).is_file() {
        plan.remove(roles, None);
    }
    plan.file(project::FILE, project.to_text(), IfExists::Overwrite);

    let Some(entries) = plan.finish(args.force, args.dry_run, "rop delete webhook would change")? else {
        return Ok(());
    };
    let changed: Vec<_> = entries.into_iter().filter(|e| e.change != Change::Unchanged).collect();
    ui::info(&plan::summary(&changed));
    kept.dedup();
    for path in &deleted_edits {
        ui::warning(&format!("{path} held edits of yours and is deleted (--force)"));
    }
    for (path, line, code) in &commented {
        ui::warning(&format!(
            "{path}:{line}: `{code}`, which you edited, names the deleted module {}; it is commented out: remove it, or register a webhook of your own there",
            k.webhook_module()
        ));
    }
    for (path, code, test) in &kept {
        ui::warning(&if *test {
            format!(
                "{path} keeps the test you edited, `{code}`: it tests the webhook just deleted and will fail; remove it"
            )
        } else {
            format!(
                "{path} keeps the code you edited, `{code}`; it is no longer registered: remove it when you no longer need it"
            )
        });
    }
    if any_admission {
        ui::info("Next: run `make manifests` to update config/webhook/manifests.yaml");
    } else {
        ui::info("Next: run `make manifests` to update the manifests");
    }
    Ok(())
}

/// `text` with every line that names `module::` (and is not a comment already) commented
/// out, and those lines: their 1-based numbers and trimmed text.
fn comment_out_uses(text: &str, module: &str) -> (String, Vec<(usize, String)>) {
    let needle = format!("{module}::");
    let mut lines = Vec::new();
    let mut out = String::with_capacity(text.len() + 64);
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_start();
        if line.contains(&needle) && !trimmed.starts_with("//") {
            let indent = &line[..line.len() - trimmed.len()];
            out.push_str(indent);
            out.push_str("// ");
            out.push_str(trimmed);
            lines.push((n + 1, trimmed.trim_end().to_string()));
        } else {
            out.push_str(line);
        }
    }
    (out, lines)
}
