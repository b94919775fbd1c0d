//! The interview languages: every text the service reads or writes is in one.

text_enum::text_enum! {
    /// An interview language (ISO 639-1). The update schema lists them all; the
    /// create schema all but the last, `uk` (`projects::CREATE_LANGUAGES`).
    pub enum Language {
        En = "en", Fr = "fr", De = "de", Es = "es", It = "it", Ar = "ar", Ru = "ru", Ja = "ja", He = "he", El = "el",
        Uk = "uk",
    }
}

/// `rtl` for the right-to-left languages among the project languages.
pub fn direction(language: &str) -> &'static str {
    if matches!(language, "ar" | "he") {
        "rtl"
    } else {
        "ltr"
    }
}
