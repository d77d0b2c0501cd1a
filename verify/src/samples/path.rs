//! Field paths in the API server's notation for custom objects: `spec.items[0].name`.

use std::fmt;

/// The path of a finding about the whole object (the API server prints `<nil>`).
pub(crate) const ROOT: &str = "(root)";

/// A path from the object's root: property names and list indexes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Path(Vec<Step>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Field(String),
    Index(usize),
    /// A key of an `additionalProperties` map, which list-type errors print as `[key]`.
    Key(String),
}

impl Path {
    /// This path, one property further.
    pub(crate) fn field(&self, name: &str) -> Path {
        let mut steps = self.0.clone();
        steps.push(Step::Field(name.to_string()));
        Path(steps)
    }

    /// This path, one list item further.
    pub(crate) fn index(&self, i: usize) -> Path {
        let mut steps = self.0.clone();
        steps.push(Step::Index(i));
        Path(steps)
    }

    /// This path, one map key further, printed `[key]`.
    pub(crate) fn key(&self, key: &str) -> Path {
        let mut steps = self.0.clone();
        steps.push(Step::Key(key.to_string()));
        Path(steps)
    }

    /// The path one step up (the path itself at the root).
    pub(crate) fn parent(&self) -> Path {
        let mut steps = self.0.clone();
        steps.pop();
        Path(steps)
    }

    /// Whether this is the path of the value itself.
    pub(crate) fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The path of `pointer` (a JSON pointer such as `/spec/items/0`) into `value`: a number
    /// is a list index only where the value there is a list.
    pub(crate) fn from_pointer(value: &serde_json::Value, pointer: &str) -> Path {
        let mut path = Path::default();
        let mut here = Some(value);
        for raw in pointer.split('/').skip(1) {
            let step = raw.replace("~1", "/").replace("~0", "~");
            match (here, step.parse::<usize>()) {
                (Some(serde_json::Value::Array(items)), Ok(i)) => {
                    here = items.get(i);
                    path = path.index(i);
                }
                _ => {
                    here = here.and_then(|v| v.get(&step));
                    path = path.field(&step);
                }
            }
        }
        path
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str(ROOT);
        }
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Field(name) if i == 0 => f.write_str(name)?,
                Step::Field(name) => write!(f, ".{name}")?,
                Step::Index(n) => write!(f, "[{n}]")?,
                Step::Key(k) => write!(f, "[{k}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation() {
        let v = serde_json::json!({"spec": {"items": [{"name": "a"}], "m": {"0": 1}}});
        assert_eq!(Path::from_pointer(&v, "/spec/items/0/name").to_string(), "spec.items[0].name");
        assert_eq!(Path::from_pointer(&v, "/spec/m/0").to_string(), "spec.m.0");
        assert_eq!(Path::from_pointer(&v, "").to_string(), ROOT);
    }
}
