//! The API server's limits on estimated CEL cost and its messages (apiextensions
//! `pkg/apis/apiextensions/validation/validation.go`: `StaticEstimatedCostLimit`,
//! `StaticEstimatedCRDCostLimit`, `getCostErrorMessage`), and cel-go's way of printing
//! compile errors (`common/errors.go`).

use cel::common::ast::SourceInfo;

use crate::report::{Report, Unbounded};
use crate::rules::Rule;

/// The most one rule (its cost times how often it runs) or one messageExpression may cost.
pub(crate) const RULE_LIMIT: u64 = 10_000_000;
/// The most all the rules and messageExpressions of one schema may cost together.
pub(crate) const SCHEMA_LIMIT: u64 = 100_000_000;

const TRY: &str = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
const FIX: &str =
    "simplify the rule, or bound what it reads: maxItems on lists, maxProperties on maps, maxLength on strings";

/// The fix for a cost finding: the bounds to add, or the generic advice when every size the
/// estimate used is bounded (the cost then comes from the rule itself, or from a value such as
/// `string(x)` whose size cannot be known).
fn fix(unbounded: &[Unbounded]) -> String {
    if unbounded.is_empty() {
        return FIX.to_string();
    }
    let adds: Vec<String> = unbounded.iter().map(|u| format!("{} to {}", u.keyword, u.path)).collect();
    format!("add {}", adds.join(", "))
}
/// `cost` against `limit`: `more than 100x`, `1.111491x` (below 1.5) or `5.6x`.
pub(crate) fn factor(cost: u64, limit: u64) -> String {
    let f = cost as f64 / limit as f64;
    if f > 100.0 {
        "more than 100x".to_string()
    } else if f < 1.5 {
        format!("{f:.6}x")
    } else {
        format!("{f:.1}x")
    }
}

/// R74: one rule or messageExpression (`what`) at `at` over [`RULE_LIMIT`]; a warning when it
/// uses more than half of it.
pub(crate) fn check_rule(report: &mut Report, at: &str, cost: u64, what: &str, unbounded: &[Unbounded]) {
    if cost > RULE_LIMIT {
        report.cost(
            Rule::CelCost,
            at,
            format!(
                "Forbidden: estimated {what} cost exceeds budget by factor of {} {TRY}; estimated cost {cost}, budget {RULE_LIMIT}",
                factor(cost, RULE_LIMIT)
            ),
            &fix(unbounded),
            unbounded.to_vec(),
        );
    } else if cost > RULE_LIMIT / 2 {
        report.cost(
            Rule::LintCelCost,
            at,
            format!("the estimated {what} cost {cost} uses more than half of the budget of {RULE_LIMIT}"),
            &fix(unbounded),
            unbounded.to_vec(),
        );
    }
}

/// The costs of one schema's rules, for R75.
#[derive(Debug, Default)]
pub(crate) struct CostTotal {
    entries: Vec<(String, u64, Vec<Unbounded>)>,
    total: u64,
}

impl CostTotal {
    /// Adds the cost of the expression at `path`.
    pub(crate) fn observe(&mut self, path: String, cost: u64, unbounded: Vec<Unbounded>) {
        self.total = self.total.saturating_add(cost);
        self.entries.push((path, cost, unbounded));
    }

    /// R75: when the schema at `schema_path` is over [`SCHEMA_LIMIT`], the up to four largest
    /// contributors of at least 1% of it, then the schema.
    pub(crate) fn finish(mut self, report: &mut Report, schema_path: &str) {
        if self.total <= SCHEMA_LIMIT {
            return;
        }
        self.entries.sort_by_key(|e| std::cmp::Reverse(e.1));
        let mut all = Vec::new();
        for (path, _, unbounded) in self.entries.iter().filter(|(_, c, _)| *c >= SCHEMA_LIMIT / 100).take(4) {
            report.cost(
                Rule::CelCostTotal,
                path,
                "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
                &fix(unbounded),
                unbounded.clone(),
            );
            all.extend(unbounded.iter().cloned());
        }
        all.sort();
        all.dedup();
        report.cost(
            Rule::CelCostTotal,
            schema_path,
            format!(
                "Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of {} {TRY}; estimated cost {}, budget {SCHEMA_LIMIT}",
                factor(self.total, SCHEMA_LIMIT),
                self.total
            ),
            &fix(&all),
            all.clone(),
        );
    }
}

/// cel-go's error list for errors found by the checker, placed at their expressions.
pub(crate) fn format_issues(errors: &[(u64, String)], source: &SourceInfo, text: &str) -> String {
    let located: Vec<(usize, usize, String)> = errors
        .iter()
        .map(|(id, message)| {
            let offset = source.offset_for(*id).map_or(0, |(start, _)| start as usize);
            let (line, column) = line_and_column(text, offset);
            (line, column, message.clone())
        })
        .collect();
    format_located(located, text)
}

/// cel-go's error list: per error `ERROR: <input>:line:column: message`, the source line and
/// a caret under the column, errors in source order.
pub(crate) fn format_located(mut located: Vec<(usize, usize, String)>, text: &str) -> String {
    located.sort_by_key(|(line, column, _)| (*line, *column));
    located.dedup();
    let lines: Vec<&str> = text.split('\n').collect();
    located
        .iter()
        .map(|(line, column, message)| {
            let source_line = lines.get(line.saturating_sub(1)).copied().unwrap_or("");
            let dots: String = source_line
                .chars()
                .take(column.saturating_sub(1))
                .map(|c| if c.len_utf8() > 1 { '\u{ff0e}' } else { '.' })
                .collect();
            format!("ERROR: <input>:{line}:{column}: {message}\n | {source_line}\n | {dots}^")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// 1-based line and column (in characters, as cel-go counts) of the byte `offset`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::factor;

    #[test]
    fn factors_are_printed_like_the_server() {
        // cel-cost-and-types.md §5.8 and §6 (c).
        assert_eq!(factor(55_574_528, 10_000_000), "5.6x");
        assert_eq!(factor(111_149_056, 100_000_000), "1.111491x");
        assert_eq!(factor(u64::MAX, 10_000_000), "more than 100x");
    }
}
