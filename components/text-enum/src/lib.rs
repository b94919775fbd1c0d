//! Closed sets of names (modes, states, kinds) declared once: the enum, its wire
//! names, parsing and serialization all come from one [`text_enum!`] declaration.
//! A crate of its own because every layer names such sets (the platform's error
//! shapes, the text toolkit's languages, each area's states) and none should
//! pull in another layer for it.

/// An enum whose values travel as fixed strings.
pub trait TextEnum: Sized + Copy + 'static {
    /// Every wire name, in declaration order (for pydantic's `enum` messages).
    const NAMES: &'static [&'static str];
    fn parse(text: &str) -> Option<Self>;
    fn as_str(self) -> &'static str;
}

/// Declares an enum and its wire names: `text_enum! { pub enum Mode { Typing = "typing", Talking = "talking" } }`.
#[macro_export]
macro_rules! text_enum {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name { $($(#[$vmeta])* $variant),+ }

        impl $crate::TextEnum for $name {
            const NAMES: &'static [&'static str] = &[$($text),+];
            fn parse(text: &str) -> Option<Self> {
                match text {
                    $($text => Some($name::$variant),)+
                    _ => None,
                }
            }
            fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl $name {
            pub fn as_str(self) -> &'static str {
                $crate::TextEnum::as_str(self)
            }

            pub fn parse(text: &str) -> Option<Self> {
                <Self as $crate::TextEnum>::parse(text)
            }
        }

        /// Compares with a wire name (`mode == "typing"`).
        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
                <Self as $crate::TextEnum>::parse(&text).ok_or_else(|| {
                    serde::de::Error::unknown_variant(&text, <Self as $crate::TextEnum>::NAMES)
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::TextEnum;

    crate::text_enum! {
        enum Colour { Red = "red", DarkBlue = "dark_blue" }
    }

    #[test]
    fn names_parse_and_serialize_from_one_declaration() {
        assert_eq!(Colour::NAMES, &["red", "dark_blue"]);
        assert_eq!(Colour::parse("dark_blue"), Some(Colour::DarkBlue));
        assert_eq!(Colour::parse("Red"), None);
        assert_eq!(Colour::Red.to_string(), "red");
        assert_eq!(serde_json::to_string(&Colour::DarkBlue).unwrap(), "\"dark_blue\"");
        assert_eq!(serde_json::from_str::<Colour>("\"red\"").unwrap(), Colour::Red);
        assert!(serde_json::from_str::<Colour>("\"green\"").is_err());
    }
}
