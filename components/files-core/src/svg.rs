//! The SVG check: a self-contained, script-free document, with CSS that loads nothing.

use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::Reader;
use std::io::BufRead;

/// Elements that run code or embed other documents.
const FORBIDDEN_ELEMENTS: &[&str] = &[
    "script", "foreignobject", "handler", "listener", "iframe", "frame", "frameset", "embed", "object", "applet",
    "base", "link", "meta",
];
/// Animation elements, which could set an `href` or an event handler afterwards.
const ANIMATION_ELEMENTS: &[&str] = &["animate", "set", "animatetransform", "animatemotion", "animatecolor", "discard"];

/// Parses `reader` as XML and checks that it is a self-contained, script-free SVG
/// document: one `<svg>` root, well-formed UTF-8 XML, no DOCTYPE (so no entity
/// declarations), no processing instructions but the XML declaration, no
/// `<script>`/`<foreignObject>` (and other embedding elements), no `on*` event
/// handler attributes, no `href` that is not a same-document `#fragment`, and no
/// CSS (`style` attributes, `<style>` elements, presentation attributes) that
/// loads anything (`url(...)` not pointing at `#fragment`, `@import`, `image-set`).
/// The error says what was wrong. Memory is bounded by the largest single tag
/// or text node.
pub fn check_svg<R: BufRead>(reader: R) -> Result<(), String> {
    let mut reader = Reader::from_reader(reader);
    let config = reader.config_mut();
    config.check_end_names = true;
    config.check_comments = true;
    config.expand_empty_elements = false;
    let mut buf = Vec::new();
    let mut depth = 0usize;
    let mut seen_root = false;
    // Decoded text of the `<style>` element being read, if any.
    let mut style: Option<String> = None;
    loop {
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|error| format!("The file is not well-formed XML: {error}"))?;
        match event {
            Event::Start(ref element) | Event::Empty(ref element) => {
                let empty = matches!(event, Event::Empty(_));
                let name = local_name(element)?;
                if depth == 0 {
                    check_root(&name, seen_root)?;
                    seen_root = true;
                }
                check_element(&name, element)?;
                if !empty {
                    depth += 1;
                    if name.eq_ignore_ascii_case("style") {
                        style = Some(String::new());
                    }
                }
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if let Some(css) = style.take() {
                    check_css(&css, "a <style> element")?;
                }
            }
            Event::Text(text) => {
                let text = text.decode().map_err(|_| "The SVG file is not valid UTF-8".to_string())?;
                if depth == 0 && !text.trim().is_empty() {
                    return Err("The file is not well-formed XML: text outside the root element".into());
                }
                if let Some(css) = style.as_mut() {
                    css.push_str(&text);
                }
            }
            Event::CData(data) => {
                if depth == 0 {
                    return Err("The file is not well-formed XML: CDATA outside the root element".into());
                }
                let data = data.decode().map_err(|_| "The SVG file is not valid UTF-8".to_string())?;
                if let Some(css) = style.as_mut() {
                    css.push_str(&data);
                }
            }
            Event::GeneralRef(reference) => {
                if depth == 0 {
                    return Err("The file is not well-formed XML: a reference outside the root element".into());
                }
                let resolved = resolved(&reference)?;
                if let Some(css) = style.as_mut() {
                    css.push_str(&resolved);
                }
            }
            Event::DocType(_) => {
                return Err("The SVG file must not contain a DOCTYPE (no DTDs or entity declarations)".into())
            }
            Event::PI(_) => {
                return Err("The SVG file must not contain processing instructions (such as xml-stylesheet)".into())
            }
            Event::Decl(_) | Event::Comment(_) => {}
            Event::Eof => return check_end(seen_root, depth),
        }
        buf.clear();
    }
}

/// The document's end: after its `<svg>` root, outside every element.
fn check_end(seen_root: bool, depth: usize) -> Result<(), String> {
    if !seen_root {
        return Err("The file is not an SVG image: it has no <svg> root element".into());
    }
    if depth != 0 {
        return Err("The file is not well-formed XML: the document ends inside an element".into());
    }
    Ok(())
}

/// An element at the top: the one root, and an `<svg>`.
fn check_root(name: &str, seen_root: bool) -> Result<(), String> {
    if seen_root {
        return Err("The file is not well-formed XML: more than one root element".into());
    }
    if name != "svg" {
        return Err(format!("The file is not an SVG image: its root element is <{name}>, not <svg>"));
    }
    Ok(())
}

/// The text a character or predefined entity reference stands for; any other
/// entity is undeclared (there is no DTD to declare one).
fn resolved(reference: &BytesRef) -> Result<String, String> {
    match reference.resolve_char_ref() {
        Ok(Some(c)) => Ok(c.to_string()),
        Ok(None) => {
            let name = reference.decode().map_err(|_| "The SVG file is not valid UTF-8".to_string())?;
            match quick_xml::escape::resolve_predefined_entity(&name) {
                Some(text) => Ok(text.to_string()),
                None => Err(format!("The file is not well-formed XML: undeclared entity &{name};")),
            }
        }
        Err(error) => Err(format!("The file is not well-formed XML: {error}")),
    }
}

fn local_name(element: &BytesStart) -> Result<String, String> {
    std::str::from_utf8(element.local_name().as_ref())
        .map(str::to_string)
        .map_err(|_| "The SVG file is not valid UTF-8".to_string())
}

fn check_element(name: &str, element: &BytesStart) -> Result<(), String> {
    let lower = name.to_ascii_lowercase();
    if FORBIDDEN_ELEMENTS.contains(&lower.as_str()) {
        return Err(format!("The SVG file must not contain <{name}> elements"));
    }
    let animation = ANIMATION_ELEMENTS.contains(&lower.as_str());
    for attribute in element.attributes().with_checks(true) {
        let attribute = attribute.map_err(|error| format!("The file is not well-formed XML: {error}"))?;
        let key = attribute.key;
        if key.as_namespace_binding().is_some() {
            continue;
        }
        let attr_name = std::str::from_utf8(key.local_name().as_ref())
            .map_err(|_| "The SVG file is not valid UTF-8".to_string())?
            .to_ascii_lowercase();
        let value = attribute
            .unescape_value()
            .map_err(|error| format!("The file is not well-formed XML: {error}"))?;
        if attr_name.starts_with("on") {
            return Err(format!(
                "The SVG file must not contain event handler attributes ('{}' on <{name}>)",
                String::from_utf8_lossy(key.as_ref())
            ));
        }
        if attr_name == "href" && !value.trim().starts_with('#') {
            return Err(format!(
                "The SVG file must not reference external resources ({}=\"{}\" on <{name}>); only #fragment links are allowed",
                String::from_utf8_lossy(key.as_ref()),
                shorten(&value)
            ));
        }
        if animation && attr_name == "attributename" {
            let target = value.trim().to_ascii_lowercase();
            let target = target.rsplit(':').next().unwrap_or_default();
            if target == "href" || target.starts_with("on") {
                return Err(format!("The SVG file must not animate '{}' (on <{name}>)", value.trim()));
            }
        }
        if compact(&value).contains("javascript:") {
            return Err(format!("The SVG file must not contain javascript: URLs (on <{name}>)"));
        }
        check_css(&value, &format!("the '{}' attribute of <{name}>", String::from_utf8_lossy(key.as_ref())))?;
    }
    Ok(())
}

/// Lower-cased, without whitespace and control characters (`java\tscript:`).
fn compact(value: &str) -> String {
    value.chars().filter(|c| !c.is_whitespace() && !c.is_control()).flat_map(char::to_lowercase).collect()
}

/// Refuses CSS that loads something: `url(x)` with `x` not a `#fragment`,
/// `@import`, `image-set(`, `src(`, `expression(`. CSS escapes and comments
/// are resolved first, so `u\72 l(` is seen as `url(`.
fn check_css(css: &str, place: &str) -> Result<(), String> {
    if !css.contains(['(', '@', '\\']) {
        return Ok(());
    }
    let css = normalize_css(css);
    if css.contains("@import") {
        return Err(format!("The SVG file must not import style sheets (in {place})"));
    }
    for function in ["image-set(", "src(", "expression("] {
        if css.contains(function) {
            return Err(format!("The SVG file must not load external resources ({function}...) in {place}"));
        }
    }
    let mut rest = css.as_str();
    while let Some(index) = rest.find("url(") {
        rest = &rest[index + 4..];
        let target = rest.trim_start().trim_start_matches(['"', '\'']).trim_start();
        if !target.starts_with('#') {
            let end = rest.find(')').unwrap_or(rest.len());
            return Err(format!(
                "The SVG file must not reference external resources (url({}) in {place}); only url(#fragment) is allowed",
                shorten(rest[..end].trim())
            ));
        }
    }
    Ok(())
}

/// Lower-cases CSS and resolves escapes (`\75` and `\u`) and comments.
fn normalize_css(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut chars = css.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let mut hex = String::new();
                while hex.len() < 6 && chars.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    hex.push(chars.next().unwrap_or_default());
                }
                if hex.is_empty() {
                    if let Some(next) = chars.next() {
                        out.extend(next.to_lowercase());
                    }
                } else {
                    if chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                    let decoded = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).unwrap_or('\u{FFFD}');
                    out.extend(decoded.to_lowercase());
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = '\0';
                for c in chars.by_ref() {
                    if previous == '*' && c == '/' {
                        break;
                    }
                    previous = c;
                }
            }
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

fn shorten(text: &str) -> String {
    let mut short: String = text.chars().take(60).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    fn svg(text: &str) -> Result<(), String> {
        check_svg(text.as_bytes())
    }

    pub(crate) const SVG_NS: &str =
        "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"";

    #[test]
    fn plain_svg_documents_pass() {
        svg(&format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- logo -->\n<svg {SVG_NS} viewBox=\"0 0 10 10\">\
             <defs><linearGradient id=\"g\"><stop offset=\"0\" stop-color=\"#fff\"/></linearGradient></defs>\
             <style>.a {{ fill: url(#g); }} /* ok */</style>\
             <rect class=\"a\" width=\"10\" height=\"10\" fill=\"url('#g')\" style=\"opacity: .5\"/>\
             <use xlink:href=\"#g\"/><use href=\" #g\"/><a href=\"#top\"><text>A &amp; B &#169;</text></a>\
             <![CDATA[ x < y ]]></svg>\n"
        ))
        .unwrap();
        svg("\u{FEFF}<svg/>").unwrap();
    }

    #[test]
    fn svg_scripts_and_event_handlers_are_refused() {
        for (doc, expected) in [
            (format!("<svg {SVG_NS}><script>alert(1)</script></svg>"), "<script>"),
            (format!("<svg {SVG_NS}><SCRIPT>alert(1)</SCRIPT></svg>"), "<SCRIPT>"),
            (format!("<svg {SVG_NS} xmlns:h=\"http://www.w3.org/1999/xhtml\"><h:script/></svg>"), "<script>"),
            (format!("<svg {SVG_NS} onload=\"alert(1)\"/>"), "'onload'"),
            (format!("<svg {SVG_NS}><rect OnClick=\"x()\"/></svg>"), "'OnClick'"),
            (format!("<svg {SVG_NS}><foreignObject><div/></foreignObject></svg>"), "<foreignObject>"),
            (format!("<svg {SVG_NS}><a href=\"javascript:alert(1)\">x</a></svg>"), "external"),
            (format!("<svg {SVG_NS}><set attributeName=\"href\" to=\"#x\"/></svg>"), "animate"),
            (format!("<svg {SVG_NS}><animate attributeName=\"onbegin\" values=\"a\"/></svg>"), "animate"),
            (format!("<svg {SVG_NS}><animate values=\"java&#x09;script:alert(1)\"/></svg>"), "javascript:"),
        ] {
            let error = svg(&doc).unwrap_err();
            assert!(error.contains(expected), "{doc}: {error}");
        }
    }

    #[test]
    fn svg_external_references_are_refused() {
        for doc in [
            format!("<svg {SVG_NS}><image href=\"https://evil.example/x.png\"/></svg>"),
            format!("<svg {SVG_NS}><image xlink:href=\"data:image/png;base64,AAAA\"/></svg>"),
            format!("<svg {SVG_NS}><use xlink:href=\"other.svg#x\"/></svg>"),
            format!("<svg {SVG_NS}><rect style=\"fill: url(https://evil.example/p)\"/></svg>"),
            format!("<svg {SVG_NS}><rect fill=\"url( 'http://evil.example/p' )\"/></svg>"),
            format!("<svg {SVG_NS}><rect style=\"fill: u\\72 l(http://evil.example/p)\"/></svg>"),
            format!("<svg {SVG_NS}><style>@import 'http://evil.example/x.css';</style></svg>"),
            format!("<svg {SVG_NS}><style>rect {{ fill: url(&#104;ttp://evil.example/p) }}</style></svg>"),
            format!("<svg {SVG_NS}><style><![CDATA[ rect {{ fill: url(http://e.example/p) }} ]]></style></svg>"),
            format!("<svg {SVG_NS}><style>a {{ background: image-set('x.png' 1x) }}</style></svg>"),
        ] {
            let error = svg(&doc).unwrap_err();
            assert!(error.contains("external") || error.contains("import"), "{doc}: {error}");
        }
    }

    #[test]
    fn svg_doctypes_entities_and_broken_xml_are_refused() {
        let cases = [
            ("<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><svg>&x;</svg>", "DOCTYPE"),
            ("<?xml-stylesheet href=\"http://evil.example/x.css\"?><svg/>", "processing instructions"),
            ("<svg><g></svg>", "well-formed"),
            ("<svg><g>", "well-formed"),
            ("<svg/><svg/>", "more than one root"),
            ("<html><svg/></html>", "root element is <html>"),
            ("just text", "text outside the root element"),
            ("", "no <svg> root"),
            ("<svg>&nbsp;</svg>", "undeclared entity"),
            ("<svg a=\"1\" a=\"2\"/>", "well-formed"),
        ];
        for (doc, expected) in cases {
            let error = svg(doc).unwrap_err();
            assert!(error.contains(expected), "{doc}: {error}");
        }
        let error = check_svg(&b"<svg>\xFF\xFE</svg>"[..]).unwrap_err();
        assert!(error.contains("UTF-8") || error.contains("well-formed"), "{error}");
    }

    #[test]
    fn css_normalisation_resolves_escapes_and_comments() {
        assert_eq!(normalize_css("U\\52 L(/**/x)"), "url(x)");
        assert_eq!(normalize_css("a\\:b"), "a:b");
        assert!(check_css("fill: url(#a) url( \"#b\" )", "x").is_ok());
        assert!(check_css("fill: url(x)", "x").is_err());
    }
}
