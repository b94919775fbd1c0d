//! HTML written by hand: a template filled in one pass, text and JSON made safe
//! to place in it (the interview page, its error pages, the synthesis report).

use serde_json::Value;

/// Replaces each `{{name}}` of `template` in ONE pass, so a value that itself
/// contains `{{...}}` (interviewee metadata in the boot JSON) is never expanded.
/// Unknown names are left as they are.
pub fn fill_template(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}").and_then(|end| values.iter().find(|(name, _)| *name == &after[..end]).map(|v| (end, v.1))) {
            Some((end, value)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text for HTML element content and attribute values.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// JSON that can sit inside `<script type="application/json">`: nothing in it
/// can close the element or start a comment, whatever the strings hold.
pub fn script_json(value: &Value) -> String {
    let text = serde_json::to_string(value).expect("JSON values serialize");
    text.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn templates_fill_in_one_pass() {
        assert_eq!(fill_template("a {{x}} b {{y}} {{z}}", &[("x", "{{y}}"), ("y", "2")]), "a {{y}} b 2 {{z}}");
        assert_eq!(fill_template("{{x}", &[("x", "1")]), "{{x}");
    }

    #[test]
    fn script_json_cannot_close_the_element() {
        let text = script_json(&json!({"k": "</script><!-- & \u{2028}"}));
        assert!(!text.contains('<') && !text.contains('>') && !text.contains('&'));
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["k"], "</script><!-- & \u{2028}");
        assert_eq!(escape_html("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    }
}
