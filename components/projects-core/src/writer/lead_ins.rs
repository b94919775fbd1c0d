//! Lead-ins: what the built-in writer drops before a topic ("we want to learn", "Topics:", "Interview nurses about").

use super::AUDIENCE_CHARS;
use super::words::{
    BE_FORMS, DESIRES, FILLERS, FOLLOWERS, GOAL_DETERMINERS, GOAL_MIDDLES, GOAL_NOUNS, GOAL_TAILS,
    INTERVIEW_TOPIC_MARKERS, INTERVIEW_VERBS, LABEL_WORDS, LEAD_ADVERBS, OBSERVED, POST_VERB, PRE_VERB, RECRUIT_LINKS,
    RECRUIT_OPENINGS, RESEARCH_VERBS, RESEARCH_VERBS_IF_FOLLOWED, STATES, STUDY_DETERMINERS, STUDY_NOUNS, STUDY_TAILS,
    SUBJECTS, WANTED, WANTS, WH, is_in, key, keys, tokens,
};
use super::text::{clean_tail, cut, trim_end_punctuation};

/// `text` without `phrase` at its start (case-insensitive, whole words), and
/// without the spaces, commas or colons after it.
fn strip_phrase<'a>(text: &'a str, phrase: &str) -> Option<&'a str> {
    if phrase.is_empty() {
        return Some(text);
    }
    let head = text.get(..phrase.len())?;
    if !head.eq_ignore_ascii_case(phrase) {
        return None;
    }
    let rest = &text[phrase.len()..];
    let ends_word = phrase.ends_with(|c: char| c.is_alphanumeric());
    if ends_word && rest.starts_with(|c: char| c.is_alphanumeric() || c == '-') {
        return None;
    }
    // "we'd", "I'm": only a pronoun runs on into an apostrophe.
    if ends_word && rest.starts_with('\'') && !matches!(phrase.to_ascii_lowercase().as_str(), "we" | "i") {
        return None;
    }
    Some(rest.trim_start_matches(|c: char| c.is_whitespace() || c == ','))
}

/// `text` without a sequence of phrases, one from each group in turn, at its start.
fn strip_sequence<'a>(text: &'a str, groups: &[&[&str]]) -> Option<&'a str> {
    let Some((group, later)) = groups.split_first() else {
        return Some(text);
    };
    let mut phrases: Vec<&str> = group.to_vec();
    phrases.sort_by_key(|p| std::cmp::Reverse(p.len()));
    phrases.into_iter().find_map(|phrase| {
        // "we" + "'d like to": no space before an apostrophe.
        let rest = if phrase.starts_with('\'') {
            strip_phrase(text.trim_start(), phrase)
        } else {
            strip_phrase(text, phrase)
        }?;
        if rest.len() == text.len() && !phrase.is_empty() {
            return None;
        }
        strip_sequence(rest, later)
    })
}

/// The lead-ins that a topic follows, at the start of a sentence.
fn strip_lead(text: &str) -> Option<&str> {
    let sequences: [&[&[&str]]; 6] = [
        &[SUBJECTS, LEAD_ADVERBS, DESIRES],
        &[SUBJECTS, LEAD_ADVERBS, WANTS, WANTED],
        &[SUBJECTS, BE_FORMS, LEAD_ADVERBS, STATES],
        &[GOAL_DETERMINERS, GOAL_NOUNS, GOAL_MIDDLES, GOAL_TAILS],
        &[STUDY_DETERMINERS, STUDY_NOUNS, STUDY_TAILS],
        &[FILLERS],
    ];
    sequences.iter().find_map(|groups| strip_sequence(text, groups)).filter(|rest| !rest.is_empty())
}

/// A research verb at the start ("find out", "explore", "learn how").
fn strip_research_verb(text: &str) -> Option<&str> {
    if let Some(rest) = strip_sequence(text, &[PRE_VERB, RESEARCH_VERBS, POST_VERB]) {
        return Some(rest).filter(|rest| !rest.is_empty());
    }
    let rest = strip_sequence(text, &[PRE_VERB, RESEARCH_VERBS_IF_FOLLOWED])?;
    let next = key(rest.trim_start_matches([':', ' ']).split(' ').next().unwrap_or_default());
    if !FOLLOWERS.contains(&next.as_str()) {
        return None;
    }
    strip_sequence(rest, &[POST_VERB]).filter(|rest| !rest.is_empty())
}

/// "Topics: ..." or "Research question - ...": a short label before a colon.
fn strip_label(text: &str) -> Option<&str> {
    let colon = text.find(':').or_else(|| text.find(" - "))?;
    let label = &text[..colon];
    let words = tokens(label);
    if words.is_empty() || words.len() > 3 || !words.iter().all(|w| LABEL_WORDS.contains(&key(w).as_str())) {
        return None;
    }
    let rest = text[colon..].trim_start_matches([':', ' ', '-']);
    (!rest.is_empty()).then_some(rest)
}

/// "Interview nurses about their onboarding", "Ask users why they cancel":
/// `(audience, topic)`.
fn strip_interview(text: &str) -> Option<(String, String)> {
    let rest = strip_sequence(text, &[INTERVIEW_VERBS])?;
    let words = tokens(rest);
    let lower = keys(&words);
    let marker = |markers: &[&str]| lower.iter().position(|w| markers.contains(&w.as_str()));
    let clause = lower
        .iter()
        .position(|w| is_in(WH, w) && !matches!(w.as_str(), "who" | "whom" | "whose" | "which") || w == "if");
    let (at, skip) = match (marker(&["about", "regarding", "around"]), clause) {
        (Some(at), _) => (at, 1),
        // "Ask users why they cancel": the audience, then a clause.
        (None, Some(at)) if at > 0 && at + 1 < words.len() => (at, 0),
        _ => (marker(&["on"])?, 1),
    };
    if at == 0 || at > 12 || at + skip >= words.len() {
        return None;
    }
    let audience = words[..at].join(" ");
    // The people the topic's pronouns stand for: "10 small business owners who switched" are small business owners.
    let head_end = lower[..at]
        .iter()
        .position(|w| matches!(w.as_str(), "who" | "that" | "which" | "whose" | "with" | "in" | "from"))
        .unwrap_or(at);
    let head_start = lower[..head_end].iter().take_while(|w| w.chars().all(|c| c.is_ascii_digit())).count();
    let people = words[head_start..head_end].join(" ");
    let topic: Vec<String> = words[at + skip..]
        .iter()
        .map(|word| {
            let bare = word.trim_end_matches([',', ';', ':', '.', '?', '!']);
            let tail = &word[bare.len()..];
            match bare.to_lowercase().as_str() {
                _ if people.is_empty() || head_end - head_start > 4 => word.clone(),
                "they" | "them" => format!("{people}{tail}"),
                "their" if people.ends_with('s') => format!("{people}'{tail}"),
                "their" => format!("{people}'s{tail}"),
                _ => word.clone(),
            }
        })
        .collect();
    Some((audience, topic.join(" ")))
}

/// "Interview parents in big cities", "Participants: nurses": the audience of a
/// sentence that says whom to interview.
pub(super) fn recruiting_audience(sentence: &str) -> Option<String> {
    let text = trim_end_punctuation(sentence);
    let after_wish = strip_sequence(text, &[SUBJECTS, LEAD_ADVERBS, DESIRES]).unwrap_or(text);
    let rest = strip_sequence(text, &[RECRUIT_OPENINGS, RECRUIT_LINKS])
        .filter(|rest| rest.len() < text.len())
        .or_else(|| strip_sequence(after_wish, &[INTERVIEW_VERBS]))?;
    let words = tokens(rest);
    let lower = keys(&words);
    let end = lower
        .iter()
        .position(|w| is_in(INTERVIEW_TOPIC_MARKERS, w) || w == "to" || is_in(WH, w) && w != "who" && w != "whose")
        .unwrap_or(words.len());
    let audience = clean_tail(&words[..end].join(" "));
    (!audience.is_empty()).then(|| cut(&audience, AUDIENCE_CHARS))
}

#[derive(Clone)]
pub(super) struct Lead {
    /// What is left of the sentence, trailing punctuation kept.
    pub(super) core: String,
    /// Whether a lead-in (not only a label) was dropped.
    pub(super) stripped: bool,
    /// Words before a lead-in in the middle of the sentence ("As a bank, we want to ...").
    pub(super) dropped_prefix: usize,
    /// The audience of "Interview nurses about ...".
    pub(super) audience: Option<String>,
    /// After "we've noticed that": an observation to explain.
    pub(super) observed: bool,
}

pub(super) fn strip_lead_ins(sentence: &str) -> Lead {
    let mut text = sentence.trim().to_string();
    let mut lead = Lead { core: String::new(), stripped: false, dropped_prefix: 0, audience: None, observed: false };
    for _ in 0..12 {
        let trimmed = text.trim_start_matches(|c: char| c.is_whitespace() || ",;:-–—\"“'(".contains(c)).to_string();
        text = trimmed;
        let observation = strip_sequence(&text, &[SUBJECTS, LEAD_ADVERBS, OBSERVED, &["that", ""]])
            .or_else(|| strip_sequence(&text, &[&["it seems", "it looks like", "apparently", "it appears"], &["that", ""]]));
        if let Some(rest) = observation.filter(|rest| !rest.is_empty()).map(str::to_string) {
            text = rest;
            lead.stripped = true;
            lead.observed = true;
            continue;
        }
        if let Some(rest) = strip_lead(&text).map(str::to_string) {
            text = rest;
            lead.stripped = true;
            continue;
        }
        if let Some(rest) = strip_research_verb(&text).map(str::to_string) {
            text = rest;
            lead.stripped = true;
            continue;
        }
        if let Some(rest) = strip_label(&text).map(str::to_string) {
            text = rest;
            continue;
        }
        if let Some((audience, rest)) = strip_interview(&text) {
            lead.audience = Some(audience);
            text = rest;
            lead.stripped = true;
            continue;
        }
        if !lead.stripped && lead.dropped_prefix == 0 {
            // "As a bank, we want to learn ...": a lead-in after a few words.
            let starts: Vec<usize> = text.match_indices(' ').map(|(at, _)| at + 1).collect();
            let found = starts.iter().enumerate().find_map(|(words, &at)| {
                let tail = &text[at..];
                let first = key(tail.split(' ').next().unwrap_or_default());
                let subject = SUBJECTS.iter().any(|s| s.split(' ').next() == Some(first.as_str()))
                    || first.starts_with("we'")
                    || first.starts_with("i'");
                if !subject {
                    return None;
                }
                let sequences: [&[&[&str]]; 4] = [
                    &[SUBJECTS, LEAD_ADVERBS, DESIRES],
                    &[SUBJECTS, LEAD_ADVERBS, WANTS, WANTED],
                    &[SUBJECTS, BE_FORMS, LEAD_ADVERBS, STATES],
                    &[&["our", "my"], GOAL_NOUNS, GOAL_MIDDLES, GOAL_TAILS],
                ];
                sequences
                    .iter()
                    .find_map(|groups| strip_sequence(tail, groups))
                    .filter(|rest| !rest.is_empty())
                    .map(|rest| (words + 1, rest.to_string()))
            });
            if let Some((words, rest)) = found {
                text = rest;
                lead.stripped = true;
                lead.dropped_prefix = words;
                continue;
            }
        }
        break;
    }
    lead.core = text;
    lead
}
