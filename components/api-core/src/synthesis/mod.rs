//! What the interviews say (docs/synthesis.md): per research question, the
//! themes that recur across interviews, each traced to the participants' own
//! words.
//!
//! Submodules: [`answers`] (what a synthesis reads of an interview),
//! [`quality`] (the quality signals stored when an interview ends).

pub mod answers;
pub mod quality;
