//! `additionalPrinterColumns` (R85–R89).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::schema::type_of;
use crate::lookup::{Lookup, resolve};
use crate::report::{Report, unknown_keys};
use crate::rules::Rule;

const TYPES: &[&str] = &["integer", "number", "string", "boolean", "date"];
const FORMATS: &[&str] = &["int32", "int64", "float", "double", "byte", "date", "date-time", "password"];

pub(crate) fn check(version: &Map<String, Value>, schema: Option<&Value>, path: &str, report: &mut Report) {
    let Some(columns) = version.get("additionalPrinterColumns").and_then(Value::as_array) else { return };
    let root = schema.and_then(Value::as_object);
    let mut names = BTreeSet::new();
    for (i, column) in columns.iter().enumerate() {
        let Some(column) = column.as_object() else { continue };
        let base = format!("{path}.additionalPrinterColumns[{i}]");
        unknown_keys(column, &["name", "type", "format", "description", "priority", "jsonPath"], &base, report);
        let name = column.get("name").and_then(Value::as_str).unwrap_or("");
        if name.is_empty() {
            report.add(
                Rule::PrinterColumnsName,
                format!("{base}.name"),
                "Required value",
                "name the column, e.g. Ready",
            );
        } else if !names.insert(name) {
            report.add(
                Rule::PrinterColumnsDuplicateName,
                format!("{base}.name"),
                format!("Duplicate value: {name:?}: kubectl shows two columns with the same header"),
                "give each column a distinct name",
            );
        }
        let t = column.get("type").and_then(Value::as_str).unwrap_or("");
        if !TYPES.contains(&t) {
            let what = if t.is_empty() { "Required value".to_string() } else { format!("Invalid value: {t:?}") };
            report.add(
                Rule::PrinterColumnsType,
                format!("{base}.type"),
                format!("{what}: must be one of boolean,date,integer,number,string"),
                "use boolean, date, integer, number or string",
            );
        }
        if let Some(format) = column.get("format").and_then(Value::as_str)
            && !FORMATS.contains(&format)
        {
            report.add(
                Rule::PrinterColumnsFormat,
                format!("{base}.format"),
                format!(
                    "Invalid value: {format:?}: must be one of byte,date,date-time,double,float,int32,int64,password"
                ),
                "use one of the listed formats, or drop format",
            );
        }
        let json_path = column.get("jsonPath").and_then(Value::as_str).unwrap_or("");
        if json_path.is_empty() {
            report.add(
                Rule::PrinterColumnsJsonPath,
                format!("{base}.jsonPath"),
                "Required value",
                "set jsonPath, e.g. .status.phase",
            );
        } else if !json_path.starts_with('.') {
            report.add(
                Rule::PrinterColumnsJsonPath,
                format!("{base}.jsonPath"),
                format!("Invalid value: {json_path:?}: must be a simple json path starting with ."),
                &format!("write .{json_path}"),
            );
        } else if let Err(problem) = super::jsonpath::parse(&format!("{{{json_path}}}")) {
            report.add(
                Rule::PrinterColumnsJsonPathSyntax,
                format!("{base}.jsonPath"),
                format!("{json_path:?} does not parse as a Kubernetes JSONPath ({problem}): the server accepts it but then drops this column and every column after it"),
                "fix the JSONPath syntax",
            );
        } else if let Some(root) = root {
            schema_lint(root, json_path, t, &base, report);
        }
    }
}

/// R89 lint: the column's path should exist in the schema with a type matching the column.
fn schema_lint(root: &Map<String, Value>, json_path: &str, column_type: &str, base: &str, report: &mut Report) {
    let plain = json_path.split(['[', '*', '@', '?']).next().unwrap_or("");
    let plain = plain.trim_end_matches('.');
    let fields: Vec<&str> = plain.trim_start_matches('.').split('.').filter(|f| !f.is_empty()).collect();
    if fields.is_empty() || ["metadata", "apiVersion", "kind"].contains(&fields[0]) || json_path.contains("..") {
        return;
    }
    let exact = plain.len() == json_path.len();
    match resolve(root, &fields) {
        Lookup::Missing { at } => report.add(
            Rule::PrinterColumnsUnknownField,
            format!("{base}.jsonPath"),
            format!(
                "{json_path:?} refers to .{} which the schema does not declare: the column is always empty",
                fields[..=at].join(".")
            ),
            "point the column at a declared field",
        ),
        Lookup::Found(node) if exact => {
            let t = type_of(node);
            let fits = match column_type {
                "integer" => t == "integer",
                "number" => t == "number" || t == "integer",
                "boolean" => t == "boolean",
                "date" => t == "string",
                _ => true,
            };
            if !fits && !t.is_empty() {
                report.add(
                    Rule::PrinterColumnsTypeMismatch,
                    format!("{base}.type"),
                    format!("column type {column_type:?} does not match the schema type {t:?} of {json_path}"),
                    "use the column type that matches the field (string fits anything)",
                );
            }
        }
        _ => {}
    }
}
