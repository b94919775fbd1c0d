//! Topics: what a sentence of the prompt is about, and in which form (clause, noun phrase, statement, ...).

use super::TOPIC_CHARS;
use super::words::{GOAL_VERBS, WH, is_aux, is_function_word, is_in, is_verb, keys, tokens};
use super::text::{capitalize, cut, lower_first, trim_end_punctuation};
use super::lead_ins::{Lead, strip_lead_ins};
use super::clauses::{is_foreign, is_plural, is_statement, join_list, noun_clause, unknown_why};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// "how people pick a bank", "why users churn", "whether ...", "how to ...".
    Clause,
    /// "the onboarding experience of new nurses", "pricing, delivery and support".
    Noun,
    /// "checkout abandonment is rising", written "the context in which ...".
    Statement,
    /// A phrase with no English in it, written "the topic “...”".
    Quoted,
    /// A question that could not be rewritten as a clause, asked as it is.
    Question,
}

#[derive(Clone)]
pub(super) struct Topic {
    pub(super) kind: Kind,
    /// Nothing was left of the sentence ("Hi!").
    pub(super) empty: bool,
    /// A plain statement ("We are a neobank.", "Nurses are quitting."), no lead-in.
    pub(super) declarative: bool,
    /// The clause, noun phrase, statement, phrase or question.
    pub(super) text: String,
    /// A noun phrase that is a list.
    pub(super) list: bool,
    /// A noun phrase that needs "the" ("onboarding experience of new nurses").
    pub(super) article: bool,
    /// The researcher's own question, asked first.
    pub(super) question: Option<String>,
    pub(super) lead: Lead,
}

impl Topic {
    fn new(kind: Kind, text: String, lead: &Lead) -> Topic {
        Topic { kind, empty: false, declarative: false, text, list: false, article: false, question: None, lead: lead.clone() }
    }

    /// The topic as a noun phrase or noun clause.
    pub(super) fn subject(&self) -> String {
        match self.kind {
            Kind::Statement => format!("the context in which {}", self.text),
            Kind::Quoted => format!("the topic “{}”", self.text),
            Kind::Noun if self.article => format!("the {}", self.text),
            _ => self.text.clone(),
        }
    }
}

pub(super) fn analyse(sentence: &str) -> Topic {
    let lead = strip_lead_ins(sentence);
    let core = lead.core.trim_end_matches(['"', '”', '\'', ' ']);
    let asks = core.trim_end_matches(')').ends_with(['?', '？']);
    let body = trim_end_punctuation(core).trim_matches(|c: char| c == '"' || c == '“' || c == '”').trim();
    let body = if lead.stripped { body.to_string() } else { lower_first(body) };
    let body = cut(&body, TOPIC_CHARS);
    let words = tokens(&body);
    let lower = keys(&words);
    let topic = |kind, text: String| Topic::new(kind, text, &lead);
    if words.is_empty() {
        let mut topic = topic(Kind::Noun, "the subject of the study".to_string());
        topic.empty = true;
        return topic;
    }
    let first = lower[0].as_str();
    if is_in(WH, first) || first == "if" || first == "to" || first == "in" || first == "for" || (asks && is_aux(first)) {
        if let Some(topic) = question_topic(&words, &lower, &body, asks, &lead) {
            return topic;
        }
    }
    if let Some(clause) = unknown_why(&words) {
        return topic(Kind::Clause, clause);
    }
    // "Improve onboarding", "we want to reduce churn": how to do it.
    if !asks && words.len() >= 2 {
        if first == "to" && (is_verb(&lower[1]) || is_in(GOAL_VERBS, &lower[1])) {
            return topic(Kind::Clause, format!("how {body}"));
        }
        if is_in(GOAL_VERBS, first) || (lead.stripped && is_verb(first) && !is_plural(first)) {
            return topic(Kind::Clause, format!("how to {body}"));
        }
    }
    if asks && words.len() >= 3 && (is_aux(first) || !lower.iter().any(|w| is_function_word(w))) {
        return topic(Kind::Question, format!("{}?", capitalize(&body)));
    }
    // "Nurses are quitting in their first year": why. "We are launching a meal kit": the context.
    let observation = lead.observed && lower.iter().skip(1).any(|w| is_verb(w) || is_aux(w));
    if observation || is_statement(&lower) {
        let first_person = matches!(first, "we" | "i" | "us" | "we're" | "i'm" | "we've" | "i've" | "we'll" | "we'd" | "i'd")
            || (matches!(first, "our" | "my") && lower.get(1).is_some_and(|w| matches!(w.as_str(), "team" | "company" | "startup" | "business")));
        let mut topic = if first_person && !lead.observed {
            topic(Kind::Statement, body)
        } else {
            topic(Kind::Clause, format!("why {body}"))
        };
        topic.declarative = !lead.stripped;
        return topic;
    }
    if is_foreign(&lower) {
        return topic(Kind::Quoted, body);
    }
    let body = match lower[0].as_str() {
        "about" | "regarding" | "on" | "concerning" if words.len() > 1 => words[1..].join(" "),
        _ => body,
    };
    let (text, list) = join_list(&body);
    // "Onboarding experience of new nurses": the onboarding experience.
    let lower = keys(&tokens(&text));
    let article = !list
        && lower.len() >= 3
        && !is_function_word(&lower[0])
        && !text.starts_with(char::is_uppercase)
        && lower.iter().position(|w| w == "of").is_some_and(|of| of > 0 && !is_plural(&lower[of - 1]));
    let mut topic = topic(Kind::Noun, text);
    topic.list = list;
    topic.article = article;
    topic
}

/// A sentence that opens like a question, as a noun clause ("how people pick a
/// bank"; two questions joined: "who they are and what they value"), or as the
/// question itself when it cannot be rewritten; `None` when it is no question.
fn question_topic(words: &[String], lower: &[String], body: &str, asks: bool, lead: &Lead) -> Option<Topic> {
    let first = lower[0].as_str();
    // "Who are they, and what do they value?", "Is it worth it, or do they prefer the web?": two questions.
    let join = (3..lower.len().saturating_sub(2)).find(|&at| {
        let next = lower[at + 1].as_str();
        matches!(lower[at].as_str(), "and" | "or")
            && ((is_in(WH, next) && !matches!(next, "who" | "which" | "whose" | "whom"))
                || (asks && words[at - 1].ends_with(',') && is_aux(next)))
    });
    let clause = match join {
        Some(at) => noun_clause(&words[..at], asks).map(|first| {
            let first = first.trim_end_matches(',').to_string();
            match noun_clause(&words[at + 1..], asks) {
                Some(second) => format!("{first} {} {second}", lower[at]),
                None => first,
            }
        }),
        None => noun_clause(words, asks),
    };
    if let Some(clause) = clause.filter(|clause| clause.split(' ').count() >= 3) {
        let mut topic = Topic::new(Kind::Clause, clause, lead);
        if asks && !lead.stripped {
            topic.question = Some(format!("{}?", capitalize(body)));
        }
        return Some(topic);
    }
    if (asks && words.len() >= 3 && first != "to") || (is_in(WH, first) && words.len() >= 2) {
        return Some(Topic::new(Kind::Question, format!("{}?", capitalize(body)), lead));
    }
    None
}
