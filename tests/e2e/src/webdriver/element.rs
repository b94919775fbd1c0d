//! An element of the current page, and what a test does with it.

use super::*;

/// An element of the current page.
#[derive(Clone)]
pub struct Element<'a> {
    pub(super) browser: &'a Browser,
    pub(super) id: String,
}

impl fmt::Debug for Element<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Element({})", self.id)
    }
}

impl<'a> Element<'a> {
    fn path(&self, rest: &str) -> String {
        format!("/element/{}{rest}", self.id)
    }

    #[track_caller]
    fn command(&self, method: &str, rest: &str, body: Option<Value>) -> Value {
        self.browser.command(method, &self.path(rest), body)
    }

    /// The reference to pass in a script's `args`.
    pub fn to_arg(&self) -> Value {
        json!({ ELEMENT_KEY: self.id })
    }

    /// Scrolls the element into view and clicks its centre (fails when another
    /// element covers it: `element click intercepted`).
    #[track_caller]
    pub fn click(&self) {
        self.command("POST", "/click", None);
    }

    pub fn try_click(&self) -> Result<(), WebDriverError> {
        self.browser.try_command("POST", &self.path("/click"), None).map(drop)
    }

    /// Types into the element (focusing it first); [`keys`] holds Enter and friends.
    #[track_caller]
    pub fn send_keys(&self, text: &str) {
        self.command("POST", "/value", Some(json!({ "text": text })));
    }

    /// Empties an input or textarea.
    #[track_caller]
    pub fn clear(&self) {
        self.command("POST", "/clear", None);
    }

    /// The rendered text (empty for hidden elements).
    #[track_caller]
    pub fn text(&self) -> String {
        as_string(self.command("GET", "/text", None))
    }

    /// An HTML attribute as written in the markup, if present.
    #[track_caller]
    pub fn attribute(&self, name: &str) -> Option<String> {
        match self.command("GET", &format!("/attribute/{name}"), None) {
            Value::Null => None,
            Value::String(s) => Some(s),
            other => Some(other.to_string()),
        }
    }

    /// A DOM property, e.g. `value`, `checked`, `disabled`.
    #[track_caller]
    pub fn property(&self, name: &str) -> Value {
        self.command("GET", &format!("/property/{name}"), None)
    }

    /// The `value` property as a string (inputs, textareas, selects).
    #[track_caller]
    pub fn value(&self) -> String {
        as_string(self.property("value"))
    }

    #[track_caller]
    pub fn is_displayed(&self) -> bool {
        self.browser.ok(self.try_is_displayed())
    }

    pub fn try_is_displayed(&self) -> Result<bool, WebDriverError> {
        self.browser.try_command("GET", &self.path("/displayed"), None).map(|v| v == true)
    }

    #[track_caller]
    pub fn is_enabled(&self) -> bool {
        self.command("GET", "/enabled", None) == true
    }

    #[track_caller]
    pub fn tag_name(&self) -> String {
        as_string(self.command("GET", "/name", None))
    }

    /// The first descendant matching the CSS selector.
    #[track_caller]
    pub fn find(&self, css: &str) -> Element<'a> {
        let value = self.command("POST", "/element", Some(json!({ "using": "css selector", "value": css })));
        self.browser.element(&value)
    }

    #[track_caller]
    pub fn find_all(&self, css: &str) -> Vec<Element<'a>> {
        let value = self.command("POST", "/elements", Some(json!({ "using": "css selector", "value": css })));
        value.as_array().map(|items| items.iter().map(|v| self.browser.element(v)).collect()).unwrap_or_default()
    }
}
