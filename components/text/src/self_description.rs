//! Sentences in which a participant says who they are: their role ("I'm a
//! media composer", "I work as a screenwriter for film and television", "As a
//! writer and designer of games, …") or their own work, field or project
//! ("My current project involves molecular rotors", "I run a production
//! company"). The synthesis keeps them out of a question's themes and counts
//! them in the participants' profile (docs/synthesis.md): who the
//! participants are is not what they think.
//!
//! English only, as the synthesis' meanings are. A sentence that names what
//! the question asks about beyond work itself ("I'm a writer who uses AI for
//! research" to a question about AI), uses a tool or holds a negation ("I'm
//! no longer a student") says more than who the participant is: it is none. The word lists are data
//! (`self_description.json`).

use super::lexicon::Lexicon;
use super::terms;
use super::words::{words, Word};
use crate::Language;
use serde::Deserialize;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

/// What a sentence says of who the participant is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelfDescription {
    /// A role, by its head word as the participant wrote it, lower case
    /// ("novelist" of "I'm a science fiction novelist"), with the word before
    /// it where the head needs one ("creative director"): roles are counted by it.
    Role(String),
    /// Their work, field, project or background, with no role named.
    Work,
}

#[derive(Deserialize)]
struct Lists {
    /// Words before the sentence's point ("So", "Sure", "Currently").
    openers: HashSet<String>,
    /// What says a role follows: "I am", "I work as", "As".
    role_leads: Vec<Vec<String>>,
    /// Adverbs between a lead and its role ("I'm *primarily* a writer").
    between: HashSet<String>,
    articles: HashSet<String>,
    /// Words that end a role's phrase ("writer *and* …", "screenwriter *for* film").
    role_ends: HashSet<String>,
    /// Endings of nouns that name a person ("writ*er*", "novel*ist*").
    person_endings: Vec<String>,
    /// Persons whose ending does not tell it ("student", "postdoc").
    persons: HashSet<String>,
    /// Heads after "I'm a" that name no role ("fan", "believer", "perfectionist").
    not_roles: HashSet<String>,
    /// What one's work is called ("my current *project* involves …").
    work_subjects: HashSet<String>,
    work_subject_leads: HashSet<String>,
    /// Verbs that say what that work is ("… *involves* molecular rotors").
    work_verbs: HashSet<String>,
    /// What one does for work, right after "I" ("I *run* a production company").
    doings: Vec<Vec<String>>,
    /// What one makes, said in the present after "I" ("I *write* short fiction").
    crafts: HashSet<String>,
    /// Words of how, when or in which order one works ("first", "myself"):
    /// a craft said with them is how one works, not what.
    practice: HashSet<String>,
    /// Heads that name a role only with the word before them ("creative
    /// *director*", "music *director*", "graphic *designer*").
    modified_heads: HashSet<String>,
    /// Words before a head that say how one holds the role, not which
    /// ("*freelance* graphic designer", "*solo* developer").
    not_kinds: HashSet<String>,
    /// Roles counted as another's kind ("novelist" and "author" as "writer").
    role_kinds: HashMap<String, String>,
    /// Question words that are work itself: naming them names nothing the question asks beyond it.
    topic_exempt: Vec<String>,
    /// Words of using something: a sentence that uses a tool says more than who one is.
    using: HashSet<String>,
}

fn lists() -> &'static Lists {
    static LISTS: OnceLock<Lists> = OnceLock::new();
    LISTS.get_or_init(|| serde_json::from_str(include_str!("self_description.json")).expect("self_description.json holds the English lists"))
}

/// The kind of role a role's head is counted as: "writer" of "novelist"
/// (`role_kinds`), the head itself otherwise.
pub fn role_kind(head: &str) -> &str {
    lists().role_kinds.get(head).map_or(head, String::as_str)
}

/// Words a role's phrase holds, at most, from its article to its head.
const ROLE_WORDS: usize = 5;
/// How far after its subject a work's verb may come ("A recent research project I worked on *involved* …").
const WORK_VERB_REACH: usize = 8;

/// What `sentence` (English) says of who its participant is, if that is all
/// it says: `question_stems` are the question's terms, of which the sentence
/// may name none but work itself.
pub fn self_description(sentence: &str, question_stems: &HashSet<String>, lexicon: &Lexicon) -> Option<SelfDescription> {
    let lists = lists();
    let all = words(sentence);
    // A negation says what one is not, or no longer ("I'm no longer a student"): more than who one is.
    let says_more = all.iter().any(|w| lists.using.contains(w.normalized.as_str())) || super::sentences::has_negation(sentence, Language::En);
    if says_more || names_the_topic(sentence, question_stems, lexicon) {
        return None;
    }
    let start = all.iter().take_while(|w| lists.openers.contains(w.normalized.as_str())).count();
    let rest = &all[start..];
    if let Some(role) = role(rest) {
        return Some(SelfDescription::Role(role));
    }
    (work_subject(rest) || work_doing(rest)).then_some(SelfDescription::Work)
}

/// Whether the sentence names a term of the question beyond work itself.
fn names_the_topic(sentence: &str, question_stems: &HashSet<String>, lexicon: &Lexicon) -> bool {
    static EXEMPT: OnceLock<HashSet<String>> = OnceLock::new();
    let exempt = EXEMPT.get_or_init(|| {
        let english = Lexicon::of(Language::En);
        lists().topic_exempt.iter().flat_map(|word| terms::answer_terms(word, &english)).collect()
    });
    terms::answer_terms(sentence, lexicon).iter().any(|term| question_stems.contains(term) && !exempt.contains(term))
}

/// Whether `words` begin with `lead`.
fn led_by(words: &[Word], lead: &[String]) -> bool {
    lead.len() <= words.len() && lead.iter().zip(words).all(|(want, word)| *want == word.normalized)
}

/// The role's head of "I'm (primarily) a science fiction novelist …": the
/// last word before what ends its phrase, where that word names a person.
fn role(words: &[Word]) -> Option<String> {
    let lists = lists();
    // Read past the adverbs between ("I am *currently* working as a …", "I'm *primarily* a writer").
    let words: Vec<Word> = words.iter().filter(|w| !lists.between.contains(w.normalized.as_str())).cloned().collect();
    let words = words.as_slice();
    let mut at = lists.role_leads.iter().filter(|lead| led_by(words, lead)).map(Vec::len).max()?;
    let has_article = words.get(at).is_some_and(|w| lists.articles.contains(w.normalized.as_str()));
    at += usize::from(has_article);
    let first = at;
    let (mut head, mut before): (Option<&Word>, Option<&Word>) = (None, None);
    while let Some(word) = words.get(at) {
        let broken = at > first && !word.follows_closely;
        if broken || at - first >= ROLE_WORDS || lists.role_ends.contains(word.normalized.as_str()) {
            break;
        }
        before = head;
        head = Some(word);
        at += 1;
    }
    let head = head?;
    // Without an article only a word that is a person alone ("I am writer") says a role.
    let name = head.normalized.as_str();
    let person = lists.persons.contains(name) || (has_article && lists.person_endings.iter().any(|ending| name.len() > ending.len() + 2 && name.ends_with(ending.as_str())));
    if !person || lists.not_roles.contains(name) {
        return None;
    }
    // "a Creative Director" and "a Music Director" are two roles.
    let kind = before.map(|w| w.normalized.as_str()).filter(|kind| lists.modified_heads.contains(name) && !lists.not_kinds.contains(*kind));
    Some(kind.map_or_else(|| name.to_string(), |kind| format!("{kind} {name}")))
}

/// "My current project involves …", "One recent project was …", "A recent
/// research project I worked on involved …": one's work as the sentence's
/// subject, and a verb that says what it is.
fn work_subject(words: &[Word]) -> bool {
    let lists = lists();
    let lead = match words.first() {
        Some(w) if w.normalized == "one" && words.get(1).is_some_and(|w| w.normalized == "of") => 2,
        _ => 0,
    };
    if !words.get(lead).is_some_and(|w| lists.work_subject_leads.contains(w.normalized.as_str())) {
        return false;
    }
    // The work is the subject's head, its last word before a verb or what ends
    // it: "the social side *of* work has gone" and "the Kentucky Career
    // Center is" are about something else.
    let is_verb = |w: &Word| lists.work_verbs.contains(w.normalized.as_str());
    let ends = |w: &Word| is_verb(w) || lists.role_ends.contains(w.normalized.as_str());
    let subject = words.iter().enumerate().skip(lead + 1).take(ROLE_WORDS).take_while(|(_, w)| !lists.role_ends.contains(w.normalized.as_str()));
    let head = subject.filter(|(_, w)| lists.work_subjects.contains(w.normalized.as_str())).find(|(at, _)| words.get(at + 1).is_some_and(ends));
    head.is_some_and(|(at, _)| words.iter().skip(at + 1).take(WORK_VERB_REACH).any(is_verb))
}

/// "I run a production company", "I recently worked on a project where …",
/// "I am currently writing a fantasy series": what "I" do for work.
fn work_doing(words: &[Word]) -> bool {
    let lists = lists();
    let Some(rest) = words.first().filter(|w| w.normalized == "i" || w.normalized == "i'm" || w.normalized == "i've").map(|_| &words[1..]) else {
        return false;
    };
    // "I'm writing" and "I've been working" split as "I" and "'m …" in the lists.
    let contracted: Vec<String> = match words[0].normalized.as_str() {
        "i'm" => vec!["'m".to_string()],
        "i've" => vec!["'ve".to_string()],
        _ => Vec::new(),
    };
    // What one does, read past the adverbs between ("I am *just* finishing a PhD project").
    let said: Vec<Word> = rest.iter().filter(|w| !lists.between.contains(w.normalized.as_str())).cloned().collect();
    let doing = lists.doings.iter().any(|doing| match doing.first() {
        Some(first) if contracted.first() == Some(first) => led_by(&said, &doing[1..]),
        _ => contracted.is_empty() && led_by(&said, doing),
    });
    doing || (contracted.is_empty() && crafted(&said))
}

/// "I write short fiction stories", "I design and hand-paint custom shoes":
/// a craft in the present, where nothing says how or when it is done ("I
/// write the first draft myself" says how one works).
fn crafted(said: &[Word]) -> bool {
    let lists = lists();
    let craft = said.first().is_some_and(|w| lists.crafts.contains(w.normalized.as_str()));
    craft && !said.iter().any(|w| lists.practice.contains(w.normalized.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;

    fn described(sentence: &str) -> Option<SelfDescription> {
        let lexicon = Lexicon::of(Language::En);
        let question: HashSet<String> = terms::answer_terms("Could you tell me about your work, and where AI fits into it?", &lexicon).into_iter().collect();
        self_description(sentence, &question, &lexicon)
    }

    fn role(head: &str) -> Option<SelfDescription> {
        Some(SelfDescription::Role(head.to_string()))
    }

    #[test]
    fn a_role_is_counted_by_its_head_word() {
        assert_eq!(described("I'm a science fiction novelist."), role("novelist"));
        assert_eq!(described("I am a writer, a freelance author, editor, and indie publisher."), role("writer"));
        assert_eq!(described("I work as a screenwriter for film and television."), role("screenwriter"));
        assert_eq!(described("Sure. I'm an illustrator and graphic designer."), role("illustrator"));
        assert_eq!(described("I'm primarily a writer and I'm currently in the preliminary phase of writing my first novel."), role("writer"));
        assert_eq!(described("As a writer and designer of games, a typical project would consist of writing scenes."), role("writer"));
        assert_eq!(described("I am currently working as a post-doctoral researcher in an academic research setting."), role("researcher"));
        assert_eq!(described("I am writer, predominantly of literary fiction."), role("writer"));
        assert_eq!(described("I am a Creative Director for a physical product company."), role("creative director"));
        assert_eq!(described("I am an assistant audio engineer at a recording studio."), role("audio engineer"));
        assert_eq!(described("I'm a freelance graphic designer."), role("graphic designer"));
        assert_eq!(described("I'm a solo developer for this project."), role("developer"));
        assert_eq!(described("As a current mechanical engineering student have done a few research project recently."), role("student"));
    }

    #[test]
    fn a_stance_or_a_feeling_is_no_role() {
        for sentence in ["I'm a big fan of it.", "I'm a firm believer in doing the work myself.", "I am a bit worried.", "I'm a perfectionist.", "I am very busy."] {
            assert_eq!(described(sentence), None, "{sentence}");
        }
    }

    #[test]
    fn ones_work_as_the_subject_or_what_one_does_for_work_is_work() {
        for sentence in [
            "My current project involves molecular rotors.",
            "My typical projects involve creative writing in either poetry or creative nonfiction.",
            "One recent project was studying the mucosal barrier-lining of the gastrointestinal tract.",
            "A recent research project I worked on involved trying to implement new statistical methods.",
            "My typical creative work is editing real estate photos and videos.",
            "I run a production company that has a focus on music, books, video content, and games.",
            "I recently worked on a physiology research project that aimed to further the connection.",
            "I am currently writing a fantasy series.",
            "One of my most recent projects was during my time as a researcher at the University of Tokyo.",
            "I write short fiction stories.",
            "I design and hand-paint custom shoes for people.",
            "I also write stories and poems.",
            "I have written and published a couple of nonfiction books about fibromyalgia on Amazon.",
            "I do a lot of different creative work.",
        ] {
            assert_eq!(described(sentence), Some(SelfDescription::Work), "{sentence}");
        }
    }

    #[test]
    fn a_sentence_about_the_topic_or_a_tool_says_more_than_who_one_is() {
        for sentence in [
            "I'm a writer who relies on AI for research.",
            "My work involves a lot of tools for transcription.",
            "I do quite a lot of creative work with AI.",
            "I write the first draft myself and only then ask for feedback.",
            "I'm no longer a student, so I don't have access to those resources now.",
            "It started with a literature review.",
            "The social side of work has disappeared for me.",
            "The Kentucky Career Center on Chestnut is a great resource to locate employment.",
            "I edit everything by hand before I send it.",
            "I usually write in the mornings, when the house is quiet.",
            "The travel to the office was exhausting, and now it has stopped.",
        ] {
            assert_eq!(described(sentence), None, "{sentence}");
        }
    }
}
