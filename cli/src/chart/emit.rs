//! Turns a Kubernetes object (as YAML) into the text of a Helm template: parts of the object are
//! swapped for placeholder tokens, the object is written as YAML, and each token is then
//! replaced by Go-template text. Working on the parsed object keeps the YAML layout right
//! (serde_yaml writes it); working on lines afterwards lets a token stand for text that is not
//! YAML (`{{- if ... }}` around a list item).

use serde_yaml::Value;

/// Written where an expression needs the column of the line it ends up on: replaced by the
/// line's indentation plus two, for `nindent` under a key.
pub const NINDENT: &str = "{nindent}";

/// Written in [`Emitter::lines`] where text needs its line's own indentation, for `nindent` of
/// entries beside the line's.
pub const COLUMN: &str = "{column}";

/// What a token stands for.
#[derive(Debug)]
enum Replacement {
    /// A scalar value: the token is replaced in place by this text (a Go-template expression,
    /// possibly with [`NINDENT`] in it).
    Inline(String),
    /// A mapping key (whose value is null) or a sequence item: the token's whole line is
    /// replaced by these lines, indented as the line was. The lines may hold tokens too.
    Lines(String),
}

/// The tokens of one template and what each stands for.
#[derive(Debug, Default)]
pub struct Emitter {
    replacements: Vec<Replacement>,
}

impl Emitter {
    /// A token for a scalar that becomes `expression` (`{{ .Release.Namespace }}`).
    pub fn inline(&mut self, expression: impl Into<String>) -> Value {
        self.token(Replacement::Inline(expression.into()))
    }

    /// A token for a mapping key or a sequence item that becomes `lines` of template text
    /// (YAML and Go-template actions, the first line at column 0).
    pub fn lines(&mut self, lines: impl Into<String>) -> Value {
        self.token(Replacement::Lines(lines.into()))
    }

    /// A token for a mapping entry `key: value` shown only when `condition` (a Go-template
    /// pipeline such as `.Values.webhook.enabled`) holds. Use it as a key with a null value.
    pub fn conditional_entry(&mut self, condition: &str, key: &str, value: &Value) -> Value {
        let mut entry = serde_yaml::Mapping::new();
        entry.insert(Value::String(key.to_string()), value.clone());
        let text = yaml(&Value::Mapping(entry));
        self.lines(format!("{{{{- if {condition} }}}}\n{text}{{{{- end }}}}"))
    }

    /// A token for a sequence item shown only when `condition` holds. Use it as the item.
    pub fn conditional_item(&mut self, condition: &str, item: &Value) -> Value {
        let text = yaml(&Value::Sequence(vec![item.clone()]));
        self.lines(format!("{{{{- if {condition} }}}}\n{text}{{{{- end }}}}"))
    }

    fn token(&mut self, replacement: Replacement) -> Value {
        self.replacements.push(replacement);
        Value::String(token_text(self.replacements.len() - 1))
    }

    /// The template text of `object`, every token replaced.
    pub fn render(&self, object: &Value) -> String {
        let mut out = String::new();
        self.expand(&yaml(object), "", false, &mut out);
        out
    }

    /// Writes `text` to `out`, each line after `indent`, expanding tokens; `block` says the
    /// text is a token's lines, whose [`NINDENT`] and [`COLUMN`] are filled in.
    fn expand(&self, text: &str, indent: &str, block: bool, out: &mut String) {
        for line in text.lines() {
            let body = line.trim_start_matches(' ');
            let own = &line[..line.len() - body.len()];
            let indent = format!("{indent}{own}");
            let key = body.strip_suffix(": null").and_then(|t| self.lines_of(t));
            let item = body.strip_prefix("- ").and_then(|t| self.lines_of(t));
            if let Some(lines) = key.or(item) {
                self.expand(lines, &indent, true, out);
            } else {
                let mut line = self.inline_in(body, indent.len());
                if block {
                    line = line
                        .replace(NINDENT, &(indent.len() + 2).to_string())
                        .replace(COLUMN, &indent.len().to_string());
                }
                out.push_str(&indent);
                out.push_str(&line);
                out.push('\n');
            }
        }
    }

    fn lines_of(&self, token: &str) -> Option<&str> {
        match self.replacements.get(index_of(token)?) {
            Some(Replacement::Lines(lines)) => Some(lines),
            _ => None,
        }
    }

    /// `body` with its inline tokens replaced; `column` is the line's indentation.
    fn inline_in(&self, body: &str, column: usize) -> String {
        let mut text = body.to_string();
        while let Some(start) = text.find(TOKEN_START) {
            let after = start + TOKEN_START.len();
            let Some(len) = text[after..].find(TOKEN_END).map(|end| after - start + end + TOKEN_END.len()) else {
                break;
            };
            let token = &text[start..start + len];
            let Some(Replacement::Inline(expression)) = index_of(token).and_then(|i| self.replacements.get(i)) else {
                panic!("token {token} stands for lines but is used as a scalar")
            };
            let expression = expression.replace(NINDENT, &(column + 2).to_string());
            text.replace_range(start..start + len, &expression);
        }
        text
    }
}

const TOKEN_START: &str = "__helm_";
const TOKEN_END: &str = "__";

fn token_text(index: usize) -> String {
    format!("{TOKEN_START}{index}{TOKEN_END}")
}

fn index_of(token: &str) -> Option<usize> {
    token.strip_prefix(TOKEN_START)?.strip_suffix(TOKEN_END)?.parse().ok()
}

/// `value` as YAML, without serde_yaml's document markers.
pub fn yaml(value: &Value) -> String {
    serde_yaml::to_string(value).expect("a YAML value serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        serde_yaml::from_str(text).unwrap()
    }

    #[test]
    fn inline_and_blocks_keep_their_indentation() {
        let mut emitter = Emitter::default();
        let mut object = parse("spec:\n  replicas: 1\n  ports:\n  - name: a\n  - name: b\n");
        object["spec"]["replicas"] = emitter.inline("{{ .Values.replicas }}");
        let item = object["spec"]["ports"][1].clone();
        object["spec"]["ports"][1] = emitter.conditional_item(".Values.b", &item);
        let resources = emitter.inline(format!("{{{{- toYaml .Values.resources | nindent {NINDENT} }}}}"));
        object["spec"].as_mapping_mut().unwrap().insert("resources".into(), resources);
        let keep = emitter.lines("{{- with .Values.x }}\nx: {{ . }}\n{{- end }}");
        object["spec"].as_mapping_mut().unwrap().insert(keep, Value::Null);
        assert_eq!(
            emitter.render(&object),
            "spec:\n  replicas: {{ .Values.replicas }}\n  ports:\n  - name: a\n  {{- if .Values.b }}\n  - name: b\n  {{- end }}\n  resources: {{- toYaml .Values.resources | nindent 4 }}\n  {{- with .Values.x }}\n  x: {{ . }}\n  {{- end }}\n"
        );
    }

    #[test]
    fn a_conditional_entry_holds_tokens_of_its_own() {
        let mut emitter = Emitter::default();
        let mut conversion = parse("webhook:\n  service:\n    name: svc\n");
        conversion["webhook"]["service"]["name"] = emitter.inline("{{ .Release.Name }}");
        let key = emitter.conditional_entry(".Values.webhook.enabled", "conversion", &conversion);
        let mut object = serde_yaml::Mapping::new();
        object.insert(key, Value::Null);
        assert_eq!(
            emitter.render(&Value::Mapping(object)),
            "{{- if .Values.webhook.enabled }}\nconversion:\n  webhook:\n    service:\n      name: {{ .Release.Name }}\n{{- end }}\n"
        );
    }
}
