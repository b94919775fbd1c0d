//! The ids of the records the areas name one another by, as types over
//! [`Uuid`]: a `TenantId` that exists is a tenant's UUID, so no function that
//! takes one checks it again, and a tenant's id cannot be passed where a
//! project's is meant. Written in the hyphenated lower-case form the API and
//! the database hold; any form of a UUID parses.

use uuid::Uuid;

macro_rules! uuid_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(Uuid);

        impl $name {
            /// A new, random id (UUID v4).
            pub fn new_random() -> $name {
                $name(Uuid::new_v4())
            }

            /// The id `text` writes in any form of a UUID; `None` for anything else.
            pub fn parse(text: &str) -> Option<$name> {
                Uuid::parse_str(text).ok().map($name)
            }
        }

        impl From<Uuid> for $name {
            fn from(uuid: Uuid) -> $name {
                $name(uuid)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.hyphenated().fmt(f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = uuid::Error;
            fn from_str(text: &str) -> Result<$name, uuid::Error> {
                Uuid::parse_str(text).map($name)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.to_string()
            }
        }

        impl From<&$name> for String {
            fn from(id: &$name) -> String {
                id.to_string()
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                let text = String::deserialize(deserializer)?;
                $name::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("not a UUID: {text:?}")))
            }
        }
    };
}

uuid_id! {
    /// A tenant's id (`X-Tenant-Id`, `tenant_id`).
    TenantId
}

uuid_id! {
    /// A project's id (`project_id`).
    ProjectId
}

uuid_id! {
    /// An interview's id (`interview_id`), which is also its session's.
    InterviewId
}
