//! The text toolkit of the service (issue 59's first crate): the word machinery
//! that the interviewer and the synthesis share, the interview languages
//! ([`Language`], a closed set declared with `text_enum!`). It knows
//! nothing of requests, storage or any resource: every crate above reads
//! text through it.
//!
//! What it holds: an
//! answer's words ([`words`]), what each interview language knows of them
//! ([`lexicon`], [`function_words`]: stop words, fillers, negations, modals,
//! stems), whole phrases ([`phrase`]), sentences and clauses ([`sentences`]),
//! terms ([`terms`]), what a participant says of who they are
//! ([`self_description`]), what says nothing ([`noise`]), what only greets, thanks
//! or says goodbye ([`courtesy`]), the language an answer is read in
//! ([`reading`]), and the meaning of a sentence as a vector ([`vectors`]).

pub mod audit;
pub mod language;
pub mod courtesy;
pub mod cut;
pub mod function_words;
pub mod lexicon;
pub mod noise;
pub mod noun_phrases;
pub mod phrase;
pub mod reading;
pub mod self_description;
pub mod sentences;
pub mod terms;
pub mod vectors;
pub mod words;

pub use language::Language;
