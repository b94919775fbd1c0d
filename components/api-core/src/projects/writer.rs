//! Generated mode: the project name and the four context fields written from a
//! prompt, by the configured language model or, without one (or when it fails,
//! answers badly or too slowly), by a deterministic built-in writer.
//!
//! The built-in writer first turns the prompt into a topic:
//! - it picks the prompt's first sentence, or a later one that says what to learn
//!   when the first only sets the scene ("We are a neobank. We want to learn ...");
//! - it drops lead-ins ("we want to learn", "I'd like to understand", "our goal is
//!   to", "help me find out", "the research is about", "Topics:", ...);
//! - it writes what is left as one of: a noun clause ("How do people pick a bank?"
//!   becomes "how people pick a bank"; "Find out why users churn" becomes "why users
//!   churn"; "Improve onboarding" becomes "how to improve onboarding"), a noun phrase
//!   ("the onboarding experience of new nurses"; a list becomes "pricing, delivery and
//!   support"), a statement to explain ("Nurses are quitting" becomes "why nurses are
//!   quitting", as does "We've noticed that ..."), the writer's own situation ("We are
//!   launching X" becomes "the context in which we are launching X"), a quoted topic (a
//!   phrase with no English in it) or, when a question cannot be rewritten, the
//!   question itself.
//!
//! Then, from templates that fit the topic's form:
//! - project_name: the topic with a capital letter, at most 80 characters;
//! - project_objective: "Understand <topic>." (the first sentence, which the built-in
//!   interviewer introduces the conversation with), what the interviews should reveal,
//!   and the prompt's other sentences as context;
//! - research_questions: the researcher's own question(s) when the prompt asks some, or
//!   one about the topic, then two about problems and improvements;
//! - success_criteria: a fixed, measurable statement about themes and recommendations;
//! - recruiting_criteria: the audience the prompt names ("Interview parents in big
//!   cities", or the people of the topic: "parents of toddlers"), else "Adults (18+)",
//!   "who can speak from recent, first-hand experience about <topic>".
//!
//! Its output always passes the validate-context rules.

use super::context;
use super::{ContextFields, MAX_NAME, MAX_TEXT};
use crate::llm::{self, LlmConfig};

const TOPIC_CHARS: usize = 160;
const NAME_CHARS: usize = 80;
const AUDIENCE_CHARS: usize = 200;
const CONTEXT_CHARS: usize = 4_000;
const EXTRA_QUESTIONS: usize = 3;

// ---------------------------------------------------------------------------
// Word lists (lower case).

const WH: &[&str] = &["how", "why", "what", "which", "who", "whom", "whose", "when", "where", "whether"];
const HOW_MODS: &[&str] =
    &["much", "many", "often", "long", "far", "well", "exactly", "quickly", "easily", "frequently", "likely", "soon"];
const DO: &[&str] = &["do", "does", "did"];
const DO_NOT: &[&str] = &["don't", "doesn't", "didn't"];
const BE: &[&str] = &["is", "are", "was", "were", "isn't", "aren't", "wasn't", "weren't"];
const HAVE: &[&str] = &["has", "have", "had", "hasn't", "haven't", "hadn't"];
const MODALS: &[&str] = &[
    "can", "could", "will", "would", "should", "might", "must", "may", "can't", "cannot", "won't", "wouldn't",
    "shouldn't", "couldn't",
];
const PRONOUNS: &[&str] = &[
    "i", "we", "you", "they", "he", "she", "it", "one", "someone", "somebody", "anyone", "anybody", "everyone",
    "everybody", "this", "that", "there",
];
const SUBJECT_PRONOUNS: &[&str] = &["i", "we", "you", "they", "he", "she"];
const CONTRACTIONS: &[&str] = &[
    "it's", "we're", "they're", "there's", "we've", "i'm", "i've", "we'll", "they've", "that's", "he's", "she's",
];
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "each", "every", "my", "our", "your", "their", "his", "her",
    "its", "some", "any", "no", "most", "many", "all", "both", "few", "several", "other",
];
const PREPOSITIONS: &[&str] = &[
    "of", "in", "on", "at", "for", "with", "from", "by", "about", "into", "to", "under", "over", "without", "across",
    "after", "before", "during", "between", "among", "around", "through", "within", "per", "via", "like",
];
const CONJUNCTIONS: &[&str] = &["and", "or", "but", "nor", "so", "yet", "than", "as", "if", "because", "while", "then", "not"];
const OTHER_FUNCTION_WORDS: &[&str] = &[
    "there", "here", "very", "too", "also", "just", "only", "more", "less", "me", "us", "them", "him", "is", "are",
    "be", "it", "we", "i", "you", "they", "who", "what", "how", "why",
];
const ADVERBS: &[&str] = &[
    "really", "actually", "usually", "typically", "generally", "normally", "currently", "still", "ever", "never",
    "always", "often", "sometimes", "first", "best", "most", "even", "already", "also", "just", "mostly", "rarely",
    "finally", "eventually", "ultimately", "today", "now", "not",
];
/// Words that open the predicate after a form of "to be".
const PREDICATE_WORDS: &[&str] = &[
    "too", "so", "very", "really", "more", "less", "still", "not", "always", "never", "often", "also", "already",
    "happy", "unhappy", "satisfied", "dissatisfied", "willing", "unwilling", "able", "unable", "likely", "unlikely",
    "ready", "aware", "unaware", "interested", "comfortable", "uncomfortable", "confident", "clear", "unclear", "easy",
    "hard", "difficult", "important", "useful", "worth", "enough", "good", "bad", "better", "worse", "different",
    "similar", "familiar", "open", "afraid", "concerned", "frustrated", "confused", "successful", "effective",
    "expensive", "cheap", "fair", "affordable", "available", "necessary", "right", "wrong", "true", "possible",
    "relevant", "helpful", "popular", "common", "rare", "slow", "fast", "high", "low", "loyal", "worried",
];
/// Nouns ending in "-ing" (not a progressive verb).
const ING_NOUNS: &[&str] = &[
    "onboarding", "pricing", "shopping", "banking", "marketing", "training", "housing", "building", "booking",
    "parking", "packaging", "clothing", "advertising", "funding", "hiring", "billing", "planning", "learning",
    "something", "nothing", "everything", "anything", "morning", "evening", "feeling", "meeting", "setting",
    "offering", "listing", "spring", "thing", "wedding", "clothing", "ticketing", "checking", "saving", "savings",
    "streaming", "gaming", "coaching", "tutoring", "recruiting", "scheduling", "dating", "commuting", "cooking",
    "reading", "writing", "sharing", "hosting", "messaging", "matching", "tracking", "staffing", "lending",
];
const PARTICIPLES: &[&str] = &[
    "made", "chosen", "taken", "gone", "done", "been", "got", "gotten", "seen", "found", "bought", "paid", "left",
    "become", "begun", "grown", "known", "thought", "felt", "built", "spent", "come", "given", "written", "driven",
    "sold", "told", "said", "held", "brought", "lost", "won", "met", "understood", "kept", "run", "set", "put", "cut",
];
/// Verbs that are seldom nouns.
const VERBS: &[&str] = &[
    "choose", "pick", "select", "decide", "compare", "evaluate", "feel", "think", "perceive", "handle", "manage",
    "cope", "react", "respond", "behave", "interact", "engage", "adopt", "leave", "quit", "stop", "start",
    "begin", "cancel", "churn", "renew", "subscribe", "buy", "purchase", "pay", "spend", "prefer", "understand",
    "know", "want", "expect", "imagine", "describe", "define", "explain", "affect", "influence", "shape",
    "improve", "differ", "vary", "matter", "happen", "build", "create", "develop", "fail", "succeed",
    "benefit", "earn", "worry", "balance", "juggle", "combine", "integrate", "remember", "forget", "notice",
    "ignore", "avoid", "miss", "try", "keep", "give", "take", "get", "make", "find", "see", "go", "come", "become",
    "remain", "seem", "be", "have", "do", "learn", "navigate", "browse", "discover", "access", "install",
    "download", "complete", "finish", "abandon", "move", "commute", "trust", "recommend", "receive", "send",
    "solve", "collaborate", "coordinate", "prioritise", "prioritize", "approach", "deal", "apply", "register",
    "afford", "borrow", "lend", "sell", "hire", "recruit", "onboard", "organise", "organize", "communicate",
    "contact", "say", "tell", "reach", "convert", "retain", "grow", "lose", "spend", "reduce", "increase",
    "encourage", "prevent", "motivate", "consider", "research", "share", "join", "adapt", "adjust", "discuss",
    "negotiate", "justify", "assess", "rely", "depend", "deserve", "accept", "reject", "refuse", "agree",
    "confuse", "frustrate", "annoy", "delight", "surprise", "satisfy", "bother", "scare", "persuade", "convince",
    "discourage", "hurt", "harm", "lead", "push", "deter", "block", "hinder", "enable", "allow", "let", "rise",
    "fall", "cause", "trigger", "prompt", "appreciate", "enjoy", "dislike", "mind", "notice", "perform", "vote",
    "attend", "participate", "contribute", "hand", "complain", "hesitate", "wait", "postpone", "delay", "skip",
    "add", "offer", "introduce", "remove", "charge", "launch", "expand", "invite", "upgrade", "downgrade",
    "unsubscribe",
];
/// Verbs that are often nouns too.
const NOUN_VERBS: &[&str] = &[
    "use", "experience", "work", "change", "plan", "search", "look", "travel", "order", "book", "price", "support",
    "help", "care", "test", "design", "review", "rate", "value", "like", "love", "hate", "drive", "ride", "fly",
    "play", "read", "watch", "listen", "eat", "drink", "cook", "live", "talk", "walk", "run", "set", "put", "open",
    "close", "call", "check", "report", "track", "measure", "drop", "fit", "sign", "log", "answer", "view", "shop",
    "visit", "return", "transfer", "save", "budget", "invest", "document", "schedule", "list", "ask", "stay",
    "feedback", "switch", "struggle", "need", "study", "win",
];
/// Imperatives that state a goal: "Improve onboarding" is about "how to improve onboarding".
const GOAL_VERBS: &[&str] = &[
    "improve", "increase", "reduce", "redesign", "launch", "build", "create", "optimise", "optimize", "grow",
    "boost", "fix", "simplify", "streamline", "decide", "choose", "pick", "select", "prioritise", "prioritize",
    "make", "get", "encourage", "convince", "attract", "retain", "win", "reach", "engage", "motivate", "rethink",
    "replace", "migrate", "lower", "raise", "prevent", "avoid", "convert", "develop", "expand", "enter",
    "personalise", "personalize", "automate", "hire", "recruit", "onboard", "keep", "help", "sell", "design",
];
/// Plural nouns that name no people, although the validate-context rule knows their singular.
const NOT_PEOPLE: &[&str] = &["decisions", "segments", "personas", "audiences"];
const IRREGULAR_PAST: &[(&str, &str)] = &[
    ("choose", "chose"), ("buy", "bought"), ("pay", "paid"), ("find", "found"), ("feel", "felt"), ("make", "made"),
    ("get", "got"), ("leave", "left"), ("go", "went"), ("come", "came"), ("think", "thought"), ("see", "saw"),
    ("know", "knew"), ("spend", "spent"), ("take", "took"), ("give", "gave"), ("become", "became"), ("begin", "began"),
    ("hear", "heard"), ("keep", "kept"), ("put", "put"), ("set", "set"), ("run", "ran"), ("send", "sent"),
    ("read", "read"), ("write", "wrote"), ("build", "built"), ("sell", "sold"), ("tell", "told"), ("say", "said"),
    ("hold", "held"), ("bring", "brought"), ("lose", "lost"), ("win", "won"), ("meet", "met"), ("quit", "quit"),
    ("understand", "understood"), ("stop", "stopped"), ("plan", "planned"), ("shop", "shopped"), ("drop", "dropped"),
    ("prefer", "preferred"), ("have", "had"), ("do", "did"), ("eat", "ate"), ("drink", "drank"), ("drive", "drove"),
    ("ride", "rode"), ("fly", "flew"), ("grow", "grew"), ("forget", "forgot"), ("cut", "cut"), ("deal", "dealt"),
    ("mean", "meant"), ("stand", "stood"), ("fall", "fell"), ("seek", "sought"), ("teach", "taught"),
    ("catch", "caught"), ("lend", "lent"), ("be", "were"), ("cancel", "cancelled"), ("travel", "travelled"),
    ("rise", "rose"), ("fall", "fell"), ("lead", "led"), ("let", "let"), ("hurt", "hurt"),
];

// Lead-ins, matched word by word as sequences of groups ("" makes a group optional).

const SUBJECTS: &[&str] = &[
    "we", "i", "our team", "my team", "the team", "our company", "the company", "our client", "the client",
    "our product team", "our research team", "our ux team", "our startup", "the business", "management",
];
const LEAD_ADVERBS: &[&str] = &["", "really", "also", "mainly", "primarily", "basically", "just", "now", "first", "all"];
const DESIRES: &[&str] = &[
    "want to", "wants to", "need to", "needs to", "would like to", "would love to", "'d like to", "'d love to",
    "'d really like to", "would really like to", "wish to", "hope to", "hopes to", "plan to", "plans to", "aim to",
    "aims to", "intend to", "intends to", "try to", "tries to", "seek to", "seeks to", "are trying to",
    "am trying to", "is trying to", "'re trying to", "'m trying to", "are looking to", "am looking to",
    "is looking to", "'re looking to", "'m looking to", "are hoping to", "am hoping to", "is hoping to",
    "'re hoping to", "'m hoping to", "are going to", "am going to", "is going to", "'re going to", "'m going to",
    "will", "'ll", "have to", "has to", "must", "should", "wonder", "wonders", "research", "study", "explore",
    "investigate",
];
/// "We want insights into ...", "I need a better understanding of ...".
const WANTS: &[&str] = &["want", "wants", "need", "needs", "would like", "'d like", "are after", "'re after"];
const WANTED: &[&str] = &[
    "insights into", "insights on", "insight into", "to know", "a better understanding of", "an understanding of",
    "clarity on", "data on", "feedback on", "input on", "to hear about",
];
const BE_FORMS: &[&str] = &["are", "am", "is", "'re", "'m", "'s"];
const STATES: &[&str] = &[
    "curious about", "curious to", "curious", "interested in", "keen to", "keen on", "eager to", "wondering about",
    "wondering", "researching", "studying", "exploring", "investigating", "looking into", "looking at",
    "focusing on", "focused on", "trying to", "looking to", "hoping to", "planning to", "working on",
    "doing research on", "doing research into", "running a study on", "running research on", "running interviews on",
    "conducting research on", "after", "asking ourselves", "asking myself",
];
const GOAL_DETERMINERS: &[&str] = &[
    "our", "my", "the", "a", "one", "this", "the main", "our main", "my main", "the key", "a key", "our key",
    "the big", "our big", "the central", "the overall", "our overall", "the primary", "our primary",
];
const GOAL_NOUNS: &[&str] = &[
    "goal", "aim", "objective", "purpose", "focus", "question", "research question", "key question", "task",
    "mission", "idea", "hope", "intention", "challenge", "research goal", "research objective", "study goal",
    "interest", "problem", "topic", "subject",
];
const GOAL_MIDDLES: &[&str] = &[
    "", "of this study", "of this project", "of the study", "of the project", "of this research",
    "of the research", "of the interviews", "here", "for this study", "for this project", "we have", "i have",
];
const GOAL_TAILS: &[&str] = &["is to", "is", "will be to", "will be", "would be to", "would be", "is about", ":", "-"];
const STUDY_DETERMINERS: &[&str] = &["the", "this", "our", "my"];
const STUDY_NOUNS: &[&str] =
    &["research", "study", "project", "interviews", "interview", "survey", "work", "research project"];
const STUDY_TAILS: &[&str] = &[
    "is about", "is all about", "is on", "is into", "is focused on", "focuses on", "looks at", "looks into",
    "will look at", "will look into", "explores", "will explore", "investigates", "examines", "covers",
    "should cover", "aims to", "wants to", "should", "will", "is meant to", "is to", "tries to", "seeks to",
    "centers on", "centres on", "is looking at", "is looking into", "is exploring", "are about", "should explore",
];
const FILLERS: &[&str] = &[
    "please", "can you", "could you", "would you", "can you please", "could you please", "help me", "help us",
    "help me to", "help us to", "please help me", "please help us", "let's", "let us", "tell me", "tell us",
    "tell me about", "tell us about", "i'd like you to", "i want you to", "i need you to", "we need you to",
    "we'd like you to", "so", "ok", "okay", "hi", "hello", "hey", "basically", "well", "ideally", "essentially",
    "in short", "in a nutshell", "in this study", "in this project", "for this study", "for this project",
    "with this study", "in this research", "briefly", "and", "also", "but", "now", "what about", "how about",
    "research on", "a study on", "a study of", "a study about", "study on", "study about", "research about",
    "a research project on", "interviews on", "interviews about",
];
/// "We've noticed that ...": an observation to explain.
const OBSERVED: &[&str] = &[
    "'ve noticed", "have noticed", "noticed", "notice", "'ve observed", "have observed", "observed", "'ve seen",
    "have seen", "see", "saw", "found", "'ve found", "have found", "know", "realised", "realized", "'ve realised",
    "'ve realized", "have realised", "have realized", "believe", "suspect", "'ve heard", "have heard", "heard",
    "are seeing", "'re seeing", "keep hearing", "keep seeing", "'ve learned", "have learned", "learned",
];
const PRE_VERB: &[&str] = &["", "to", "better", "to better", "really", "to really", "fully", "to fully", "more"];
const RESEARCH_VERBS: &[&str] = &[
    "understand", "understanding", "find out more about", "find out about", "find out", "finding out",
    "figure out", "figuring out", "work out", "explore", "exploring", "discover", "discovering", "investigate",
    "investigating", "uncover", "uncovering", "examine", "examining", "determine", "identify", "assess",
    "evaluate", "look into", "looking into", "look at", "looking at", "dig into", "dig deeper into", "dive into",
    "deep dive into", "get to know", "get a sense of", "get a feel for", "get a better sense of",
    "get a better understanding of", "get an understanding of", "gain a better understanding of",
    "gain a deeper understanding of", "gain an understanding of", "a better understanding of",
    "an understanding of", "gain insights into", "gain insight into", "gain insights on", "get insights into",
    "get insights on", "get insight into", "insights into", "insights on", "insight into", "learn more about",
    "learn about", "learning about", "learning more about", "know more about", "hear about", "hear more about",
    "research into",
];
/// Research verbs that also start topics ("study habits"): stripped only before a clause or a determiner.
const RESEARCH_VERBS_IF_FOLLOWED: &[&str] = &[
    "learn", "learning", "know", "knowing", "see", "study", "studying", "research", "researching", "test",
    "validate", "map", "map out", "analyse", "analyze", "analysing", "analyzing", "clarify", "measure", "check",
    "hear", "capture", "document", "explain", "describe", "ask", "answer",
];
const FOLLOWERS: &[&str] = &[
    "how", "why", "what", "which", "who", "whom", "whose", "when", "where", "whether", "if", "about", "more", "the",
    "our", "their", "a", "an", "your", "my", "what's", "how's", "whether", "to",
];
const POST_VERB: &[&str] = &["", "better", "more deeply", "in depth", "in detail", "exactly", "more about", "about", "more"];
const INTERVIEW_VERBS: &[&str] = &[
    "interview", "interviews with", "talk to", "talk with", "speak to", "speak with", "ask", "chat with",
    "run interviews with", "conduct interviews with", "do interviews with", "hold interviews with", "interviewing",
    "talking to", "talking with", "speaking with", "speaking to", "asking", "recruit", "recruiting", "target",
];
const INTERVIEW_TOPIC_MARKERS: &[&str] = &["about", "regarding", "around", "on"];
const RECRUIT_OPENINGS: &[&str] = &[
    "participants", "audience", "target audience", "target group", "the target group", "the audience",
    "recruiting", "recruitment", "who to interview", "interviewees", "respondents", "the participants",
];
const RECRUIT_LINKS: &[&str] = &["", ":", "are", "should be", "must be", "will be", "is", "-", "should include", "include"];
const LABEL_WORDS: &[&str] = &[
    "topic", "topics", "subject", "theme", "themes", "focus", "area", "areas", "research", "study", "project", "goal",
    "goals", "aim", "objective", "objectives", "question", "questions", "interview", "interviews", "key", "main",
    "context", "brief", "idea", "survey", "scope", "about", "re", "title", "description", "summary", "overview",
    "problem", "issue", "challenge", "the", "our", "my",
];

fn is_in(list: &[&str], word: &str) -> bool {
    list.contains(&word)
}

fn is_aux(word: &str) -> bool {
    is_in(DO, word) || is_in(DO_NOT, word) || is_in(BE, word) || is_in(HAVE, word) || is_in(MODALS, word)
}

fn is_function_word(word: &str) -> bool {
    is_in(DETERMINERS, word)
        || is_in(PREPOSITIONS, word)
        || is_in(CONJUNCTIONS, word)
        || is_in(OTHER_FUNCTION_WORDS, word)
        || is_in(WH, word)
        || is_in(HOW_MODS, word)
        || is_aux(word)
}

fn is_verb(word: &str) -> bool {
    is_in(VERBS, word) || is_in(NOUN_VERBS, word)
}

/// A word's lower-case core: surrounding punctuation dropped, inner apostrophes and hyphens kept.
fn key(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

fn keys(words: &[String]) -> Vec<String> {
    words.iter().map(|w| key(w)).collect()
}

fn split_words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

// ---------------------------------------------------------------------------
// Text helpers.

/// Cuts `text` to at most `max` characters at a word boundary.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let prefix: String = text.chars().take(max + 1).collect();
    // Rather at a break between phrases ("..., e.g." or " - "), then between words.
    let phrase_break = [" - ", " – ", " — ", ", ", "; ", " (", " or "]
        .iter()
        .filter_map(|sep| prefix.rfind(sep))
        .max()
        .filter(|at| *at > max * 2 / 3);
    let word_break = prefix.rfind(' ').filter(|at| *at > max / 2);
    let cut = match phrase_break.or(word_break) {
        Some(at) => prefix[..at].to_string(),
        None => prefix.chars().take(max).collect(),
    };
    clean_tail(&cut)
}

/// Drops what a cut can leave dangling at the end: punctuation, an unclosed
/// bracket or quote, a preposition or conjunction.
fn clean_tail(text: &str) -> String {
    const DANGLING: &[&str] = &[
        "and", "or", "of", "the", "a", "an", "to", "in", "for", "with", "on", "at", "by", "from", "about", "their",
        "our", "your", "its", "his", "her", "my", "as", "that", "which", "who", "but", "nor", "into", "how", "why",
        "what", "whether", "is", "are", "than", "like", "such", "e.g", "i.e", "etc",
    ];
    let mut text = text.trim().to_string();
    loop {
        let before = text.clone();
        for (open, close) in [('(', ')'), ('[', ']'), ('“', '”')] {
            if text.matches(open).count() > text.matches(close).count() {
                if let Some(at) = text.rfind(open) {
                    text.truncate(at);
                }
            }
        }
        if text.matches('"').count() % 2 == 1 {
            if let Some(at) = text.rfind('"') {
                text.truncate(at);
            }
        }
        text = text.trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—/&(+".contains(c)).to_string();
        if let Some((head, last)) = text.rsplit_once(' ') {
            if DANGLING.contains(&key(last).as_str()) {
                text = head.to_string();
            }
        }
        if text == before {
            return text;
        }
    }
}

/// Drops trailing sentence punctuation (and spaces) from a sentence.
fn trim_end_punctuation(text: &str) -> &str {
    text.trim_end_matches(|c: char| c.is_whitespace() || ".!?;:,…？。".contains(c))
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// Lower-cases the first letter of a sentence-initial word, unless it looks like a
/// name or an acronym ("SaaS", "B2B", "Google Maps").
fn lower_first(text: &str) -> String {
    let mut words = text.splitn(3, ' ');
    let first = words.next().unwrap_or_default();
    let second = words.next().unwrap_or_default();
    let rest_of_first: String = first.chars().skip(1).collect();
    let keep = rest_of_first.chars().any(|c| c.is_uppercase() || c.is_ascii_digit())
        || second.chars().next().is_some_and(char::is_uppercase)
        || first == "I"
        || first.starts_with("I'");
    if keep {
        return text.to_string();
    }
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// Ends a sentence with a full stop unless it already ends with punctuation.
fn end_sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?', '…', '"', '”', '？']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// Whitespace collapsed; list items (lines opening with "-", "*", "•", "1." or
/// "2)") joined into a comma-separated list; blank lines end sentences; a prompt
/// written all in capitals is lower-cased; typographic apostrophes made plain.
fn normalise(prompt: &str) -> String {
    let mut out = String::new();
    let mut in_list = false;
    let mut break_pending = false;
    for line in prompt.replace(['’', '‘'], "'").lines() {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() {
            break_pending = !out.is_empty();
            continue;
        }
        let item = list_item(&line);
        if let Some(item) = item {
            let item = item.trim_end_matches([',', ';', '.']).trim();
            if item.is_empty() {
                continue;
            }
            if in_list {
                out.push_str(", ");
            } else if !out.is_empty() {
                if out.ends_with(':') {
                    out.push(' ');
                } else {
                    let ended = out.ends_with(['.', '!', '?', ';']);
                    out.push_str(if ended { " " } else { ": " });
                }
            }
            out.push_str(item);
            in_list = true;
            break_pending = false;
            continue;
        }
        if !out.is_empty() {
            let ended = out.ends_with(['.', '!', '?', ';', ':']);
            if (in_list || break_pending) && !ended {
                out.push('.');
            }
            out.push(' ');
        }
        out.push_str(&line);
        in_list = false;
        break_pending = false;
    }
    if !out.chars().any(char::is_lowercase) && out.chars().filter(|c| c.is_alphabetic()).count() > 3 {
        out = out.to_lowercase();
    }
    // A lone "i" is the pronoun.
    out.split(' ')
        .map(|word| {
            let lower = word.to_lowercase();
            if lower == "i" || lower.starts_with("i'") && word.starts_with('i') && word.len() <= 4 {
                capitalize(word)
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn list_item(line: &str) -> Option<&str> {
    for marker in ["- ", "* ", "• ", "· ", "– ", "— ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return Some(rest);
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && digits <= 2 {
        let rest = &line[digits..];
        for marker in [". ", ") "] {
            if let Some(rest) = rest.strip_prefix(marker) {
                return Some(rest);
            }
        }
    }
    None
}

/// The sentences of normalised text: split after ".", "!", "?" or ";" (a run of
/// them, and closing quotes or brackets) followed by a space; not after
/// abbreviations such as "e.g." or "U.S.".
fn sentences(text: &str) -> Vec<String> {
    const ABBREVIATIONS: &[&str] =
        &["e.g", "i.e", "etc", "vs", "approx", "incl", "mr", "mrs", "ms", "dr", "st", "no", "ca", "cf", "esp"];
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        current.push(c);
        i += 1;
        if !matches!(c, '.' | '!' | '?' | ';' | '？' | '。' | '！') {
            continue;
        }
        while i < chars.len() && (matches!(chars[i], '.' | '!' | '?' | '"' | '”' | ')' | '’' | '\'')) {
            current.push(chars[i]);
            i += 1;
        }
        if i < chars.len() && !chars[i].is_whitespace() {
            continue;
        }
        if c == '.' {
            let last = current.trim_end_matches('.').rsplit(' ').next().unwrap_or_default().to_lowercase();
            let abbreviation = ABBREVIATIONS.contains(&last.as_str()) || (last.contains('.') && last.len() <= 6);
            if abbreviation && i < chars.len() {
                continue;
            }
        }
        let sentence = current.trim().to_string();
        if sentence.chars().any(char::is_alphanumeric) {
            out.push(sentence);
        }
        current.clear();
    }
    let sentence = current.trim().to_string();
    if sentence.chars().any(char::is_alphanumeric) {
        out.push(sentence);
    }
    out
}

// ---------------------------------------------------------------------------
// Lead-ins.

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
    let words = split_words(label);
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
    let words = split_words(rest);
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
fn recruiting_audience(sentence: &str) -> Option<String> {
    let text = trim_end_punctuation(sentence);
    let after_wish = strip_sequence(text, &[SUBJECTS, LEAD_ADVERBS, DESIRES]).unwrap_or(text);
    let rest = strip_sequence(text, &[RECRUIT_OPENINGS, RECRUIT_LINKS])
        .filter(|rest| rest.len() < text.len())
        .or_else(|| strip_sequence(after_wish, &[INTERVIEW_VERBS]))?;
    let words = split_words(rest);
    let lower = keys(&words);
    let end = lower
        .iter()
        .position(|w| is_in(INTERVIEW_TOPIC_MARKERS, w) || w == "to" || is_in(WH, w) && w != "who" && w != "whose")
        .unwrap_or(words.len());
    let audience = clean_tail(&words[..end].join(" "));
    (!audience.is_empty()).then(|| cut(&audience, AUDIENCE_CHARS))
}

#[derive(Clone)]
struct Lead {
    /// What is left of the sentence, trailing punctuation kept.
    core: String,
    /// Whether a lead-in (not only a label) was dropped.
    stripped: bool,
    /// Words before a lead-in in the middle of the sentence ("As a bank, we want to ...").
    dropped_prefix: usize,
    /// The audience of "Interview nurses about ...".
    audience: Option<String>,
    /// After "we've noticed that": an observation to explain.
    observed: bool,
}

fn strip_lead_ins(sentence: &str) -> Lead {
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

// ---------------------------------------------------------------------------
// Questions as noun clauses: "How do people pick a bank?" is about "how people pick a bank".

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Aux {
    Do,
    DoNot,
    Be,
    Have,
    Modal,
}

fn aux_class(word: &str) -> Option<Aux> {
    if is_in(DO, word) {
        Some(Aux::Do)
    } else if is_in(DO_NOT, word) {
        Some(Aux::DoNot)
    } else if is_in(BE, word) {
        Some(Aux::Be)
    } else if is_in(HAVE, word) {
        Some(Aux::Have)
    } else if is_in(MODALS, word) {
        Some(Aux::Modal)
    } else {
        None
    }
}

fn is_progressive(word: &str) -> bool {
    word.len() >= 5 && word.ends_with("ing") && !is_in(ING_NOUNS, word)
}

fn is_participle(word: &str) -> bool {
    is_in(PARTICIPLES, word) || (word.len() > 3 && word.ends_with("ed") && !word.ends_with("eed"))
}

fn is_plural(word: &str) -> bool {
    matches!(word, "people" | "children" | "men" | "women" | "staff" | "folks")
        || (word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("'s"))
}

/// Whether the predicate (a verb, or for "to be" an adjective, participle or
/// complement) opens at `rest[j]`. Pass 0 looks for clear verbs, pass 1 also
/// accepts words that are nouns as often as verbs.
fn predicate_at(rest: &[String], j: usize, class: Aux, pass: u8) -> bool {
    let Some(word) = rest.get(j).map(String::as_str) else {
        return false;
    };
    let next_is_verb = rest.get(j + 1).is_some_and(|next| is_verb(next));
    match (class, pass) {
        (Aux::Do | Aux::DoNot | Aux::Modal, 0) => is_in(VERBS, word) || (is_in(ADVERBS, word) && next_is_verb),
        // "how will remote work change office design": not "work" but "change".
        (Aux::Do | Aux::DoNot | Aux::Modal, _) => is_in(NOUN_VERBS, word) && !next_is_verb,
        (Aux::Be, 0) => {
            is_progressive(word)
                || is_participle(word)
                || is_in(PREDICATE_WORDS, word)
                || (j > 0 && is_in(DETERMINERS, word) && !is_in(PREPOSITIONS, &rest[j - 1]))
        }
        (Aux::Have, 0) => is_participle(word) || is_in(ADVERBS, word),
        _ => false,
    }
}

/// Whether `rest[i]` (not the first word) can belong to a subject noun phrase.
fn in_noun_phrase(rest: &[String], i: usize) -> bool {
    let word = rest[i].as_str();
    !(is_aux(word)
        || is_in(SUBJECT_PRONOUNS, word)
        || is_in(WH, word)
        || matches!(word, "to" | "not" | "that" | "than" | "because" | "if" | "so" | "")
        || (is_in(DETERMINERS, word) && !is_in(PREPOSITIONS, &rest[i - 1])))
}

/// How many of `rest`'s words form the subject, the predicate following.
fn subject_len(rest: &[String], class: Aux) -> Option<usize> {
    let first = rest.first()?.as_str();
    if is_aux(first) || is_in(PREPOSITIONS, first) || is_in(WH, first) || first == "not" {
        return None;
    }
    // "should we add ...", "does it help ...": a personal pronoun is the whole subject.
    let personal = is_in(PRONOUNS, first) && !matches!(first, "this" | "that");
    if personal && rest.get(1).is_some_and(|next| !is_function_word(next) || is_in(ADVERBS, next)) {
        return Some(1);
    }
    if is_in(PRONOUNS, first) && (0..2).any(|pass| predicate_at(rest, 1, class, pass)) {
        return Some(1);
    }
    let min = if is_in(DETERMINERS, first) { 2 } else { 1 };
    for pass in 0..2 {
        for j in min..rest.len().min(7) {
            if j > 1 && !in_noun_phrase(rest, j - 1) {
                break;
            }
            if predicate_at(rest, j, class, pass) {
                return Some(j);
            }
        }
    }
    None
}

fn third_person(verb: &str) -> String {
    match verb {
        "be" => "is".into(),
        "have" => "has".into(),
        "do" => "does".into(),
        "go" => "goes".into(),
        _ => {
            let before_y = verb.chars().rev().nth(1).unwrap_or('a');
            if verb.ends_with('y') && !"aeiou".contains(before_y) {
                format!("{}ies", &verb[..verb.len() - 1])
            } else if ["s", "sh", "ch", "x", "z", "o"].iter().any(|end| verb.ends_with(end)) {
                format!("{verb}es")
            } else {
                format!("{verb}s")
            }
        }
    }
}

fn past(verb: &str) -> String {
    if let Some((_, past)) = IRREGULAR_PAST.iter().find(|(base, _)| *base == verb) {
        return past.to_string();
    }
    let before_y = verb.chars().rev().nth(1).unwrap_or('a');
    if verb.ends_with('e') {
        format!("{verb}d")
    } else if verb.ends_with('y') && !"aeiou".contains(before_y) {
        format!("{}ied", &verb[..verb.len() - 1])
    } else {
        format!("{verb}ed")
    }
}

/// A question or clause opening with a question word, "if" or (for a question)
/// an auxiliary, as a noun clause: "how people pick a bank", "why users are
/// leaving", "whether our pricing is too complex". `None` when the word order
/// cannot be worked out.
fn noun_clause(words: &[String], question: bool) -> Option<String> {
    let lower = keys(words);
    let n = words.len();
    let first = lower.first()?.as_str();
    let mut out: Vec<String>;
    let start;
    if first == "if" || first == "whether" {
        out = vec!["whether".to_string()];
        start = 1;
    } else if is_in(WH, first) || (n > 2 && matches!((first, lower[1].as_str()), ("to" | "in" | "for", "what"))) {
        let mut wh = 1;
        if n > 2 && lower[1] == "what" {
            wh = 3; // "to what extent", "in what way", "for what reason"
        } else if first == "how" && n > 1 && is_in(HOW_MODS, &lower[1]) {
            wh = 2;
        }
        // "which features do users miss", "how much money do people spend": a noun after the question word.
        if question && (matches!(first, "what" | "which" | "whose") || (wh == 2 && matches!(lower[1].as_str(), "much" | "many"))) {
            if let Some(at) = (wh..(wh + 3).min(n)).find(|&at| is_aux(&lower[at])) {
                if at > wh && lower[wh..at].iter().all(|w| !is_function_word(w) || w == "of") {
                    wh = at;
                }
            }
        }
        out = words[..wh.min(n)].to_vec();
        out[0] = lower[0].clone();
        start = wh.min(n);
    } else if is_aux(first) && question {
        out = vec!["whether".to_string()];
        start = 0;
    } else {
        return None;
    }
    if start >= n {
        return Some(out.join(" "));
    }
    let aux = lower[start].as_str();
    let Some(class) = aux_class(aux) else {
        out.extend_from_slice(&words[start..]);
        return Some(out.join(" "));
    };
    let rest = &words[start + 1..];
    let rest_lower = &lower[start + 1..];
    // The question word is the subject: "what is driving churn", "who would pay for it".
    let wh_subject = matches!(out[0].as_str(), "what" | "who" | "which" | "whose");
    if wh_subject && class != Aux::Do && (rest.is_empty() || (0..2).any(|pass| predicate_at(rest_lower, 0, class, pass))) {
        out.push(aux.to_string());
        out.extend_from_slice(rest);
        return Some(out.join(" "));
    }
    if rest.is_empty() {
        return None;
    }
    // "why do users not finish onboarding"
    if class == Aux::Do {
        if let Some(not) = rest_lower.iter().take(6).position(|w| w == "not") {
            if not > 0 && (1..not).all(|i| in_noun_phrase(rest_lower, i)) {
                out.extend_from_slice(&rest[..not]);
                out.push(format!("{aux} not"));
                out.extend_from_slice(&rest[not + 1..]);
                return Some(out.join(" "));
            }
        }
    }
    match (class, aux) {
        (Aux::Do, "do") => {
            // "How do you choose your bank?" is about how people choose theirs.
            let you = rest_lower[0] == "you";
            for (word, lower) in rest.iter().zip(rest_lower) {
                out.push(match lower.as_str() {
                    "you" if you => "people".to_string(),
                    "your" if you => "their".to_string(),
                    "yourself" | "yourselves" if you => "themselves".to_string(),
                    _ => word.clone(),
                });
            }
        }
        (Aux::Do, _) => {
            let subject = subject_len(rest_lower, class)?;
            let mut verb = subject;
            while verb + 1 < rest.len() && is_in(ADVERBS, &rest_lower[verb]) {
                verb += 1;
            }
            if !is_verb(&rest_lower[verb]) {
                return None;
            }
            out.extend_from_slice(&rest[..verb]);
            out.push(if aux == "does" { third_person(&rest_lower[verb]) } else { past(&rest_lower[verb]) });
            out.extend_from_slice(&rest[verb + 1..]);
        }
        _ => {
            // "what the main pain points are when invoicing clients"
            let before_subordinate = || {
                let at = rest_lower.iter().position(|w| matches!(w.as_str(), "when" | "while" | "if" | "because" | "once"));
                at.filter(|&at| at > 0).unwrap_or(rest.len())
            };
            let subject = subject_len(rest_lower, class)
                .or_else(|| (class == Aux::Be && out[0] != "whether").then(before_subordinate))?;
            out.extend_from_slice(&rest[..subject]);
            out.push(aux.to_string());
            out.extend_from_slice(&rest[subject..]);
        }
    }
    Some(out.join(" "))
}

/// "Checkout abandonment is rising and we do not know why": "why checkout abandonment is rising".
fn unknown_why(words: &[String]) -> Option<String> {
    let lower = keys(words);
    if lower.len() < 5 || lower.last()? != "why" {
        return None;
    }
    let knowing = ["know", "understand", "sure", "idea", "clue", "explain", "out"];
    (1..lower.len() - 2).rev().find_map(|at| {
        let subject = matches!(lower[at].as_str(), "we" | "i" | "nobody" | "no" | "we're" | "i'm" | "we've");
        let linked = matches!(lower[at - 1].as_str(), "and" | "but") || words[at - 1].ends_with(',');
        if !subject || !linked || !lower[at..].iter().any(|w| knowing.contains(&w.as_str())) {
            return None;
        }
        let end = if matches!(lower[at - 1].as_str(), "and" | "but") { at - 1 } else { at };
        let statement = words[..end].join(" ");
        let statement = statement.trim_end_matches(',');
        (!statement.is_empty()).then(|| format!("why {statement}"))
    })
}

/// Whether a phrase is a full statement ("Our nurses leave in their first year",
/// "Checkout abandonment is rising") rather than a noun phrase.
fn is_statement(lower: &[String]) -> bool {
    let end = lower
        .iter()
        .position(|w| matches!(w.as_str(), "who" | "that" | "which" | "whose" | "where" | "when" | "why" | "how" | "whether"))
        .unwrap_or(lower.len());
    let head = &lower[..end];
    head.iter().any(|w| is_aux(w) || is_in(SUBJECT_PRONOUNS, w) || is_in(CONTRACTIONS, w))
        || head.iter().enumerate().any(|(at, word)| {
            let verb = head[at + 1..].iter().find(|w| !is_in(ADVERBS, w));
            is_plural(word) && !is_in(DETERMINERS, word) && verb.is_some_and(|verb| is_in(VERBS, verb))
        })
}

/// A phrase with no English function word in it but letters outside ASCII.
fn is_foreign(lower: &[String]) -> bool {
    lower.len() > 1
        && lower.iter().any(|w| w.chars().any(|c| c.is_alphabetic() && !c.is_ascii()))
        && !lower.iter().any(|w| is_function_word(w) || is_verb(w))
}

/// "pricing, delivery, support" as "pricing, delivery and support"; whether it is a list.
fn join_list(text: &str) -> (String, bool) {
    let mut items: Vec<&str> = text.split(',').map(str::trim).filter(|item| !item.is_empty()).collect();
    if items.len() < 2 || items.iter().any(|item| item.split_whitespace().count() > 5) {
        return (text.to_string(), false);
    }
    if items.last().is_some_and(|last| matches!(key(last).as_str(), "etc" | "and so on")) {
        items.pop();
    }
    let Some((last, head)) = items.split_last() else {
        return (text.to_string(), false);
    };
    if head.is_empty() {
        return (last.to_string(), false);
    }
    let last_lower = last.to_lowercase();
    if last_lower.starts_with("and ") || last_lower.starts_with("or ") {
        return (format!("{} {}", head.join(", "), last), true);
    }
    if last_lower.contains(" and ") || last_lower.contains(" or ") {
        return (format!("{}, {}", head.join(", "), last), true);
    }
    (format!("{} and {}", head.join(", "), last), true)
}

// ---------------------------------------------------------------------------
// Topics.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
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
struct Topic {
    kind: Kind,
    /// Nothing was left of the sentence ("Hi!").
    empty: bool,
    /// A plain statement ("We are a neobank.", "Nurses are quitting."), no lead-in.
    declarative: bool,
    /// The clause, noun phrase, statement, phrase or question.
    text: String,
    /// A noun phrase that is a list.
    list: bool,
    /// A noun phrase that needs "the" ("onboarding experience of new nurses").
    article: bool,
    /// The researcher's own question, asked first.
    question: Option<String>,
    lead: Lead,
}

impl Topic {
    /// The topic as a noun phrase or noun clause.
    fn subject(&self) -> String {
        match self.kind {
            Kind::Statement => format!("the context in which {}", self.text),
            Kind::Quoted => format!("the topic “{}”", self.text),
            Kind::Noun if self.article => format!("the {}", self.text),
            _ => self.text.clone(),
        }
    }
}

fn analyse(sentence: &str) -> Topic {
    let lead = strip_lead_ins(sentence);
    let core = lead.core.trim_end_matches(['"', '”', '\'', ' ']);
    let asks = core.trim_end_matches(')').ends_with(['?', '？']);
    let body = trim_end_punctuation(core).trim_matches(|c: char| c == '"' || c == '“' || c == '”').trim();
    let body = if lead.stripped { body.to_string() } else { lower_first(body) };
    let body = cut(&body, TOPIC_CHARS);
    let words = split_words(&body);
    let lower = keys(&words);
    let topic = |kind, text: String| Topic { kind, empty: false, declarative: false, text, list: false, article: false, question: None, lead: lead.clone() };
    if words.is_empty() {
        let mut topic = topic(Kind::Noun, "the subject of the study".to_string());
        topic.empty = true;
        return topic;
    }
    let first = lower[0].as_str();
    if is_in(WH, first) || first == "if" || first == "to" || first == "in" || first == "for" || (asks && is_aux(first)) {
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
            None => noun_clause(&words, asks),
        };
        if let Some(clause) = clause.filter(|clause| clause.split(' ').count() >= 3) {
            let mut topic = topic(Kind::Clause, clause);
            if asks && !lead.stripped {
                topic.question = Some(format!("{}?", capitalize(&body)));
            }
            return topic;
        }
        if (asks && words.len() >= 3 && first != "to") || (is_in(WH, first) && words.len() >= 2) {
            return topic(Kind::Question, format!("{}?", capitalize(&body)));
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
    let lower = keys(&split_words(&text));
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

// ---------------------------------------------------------------------------
// Audiences.

/// Whether a word names a group of people, by the validate-context rule ("parents", "nurses", "people").
fn is_people(word: &str) -> bool {
    is_plural(word)
        && word.chars().all(|c| c.is_alphabetic() || c == '-')
        && !is_in(NOT_PEOPLE, word)
        && context::check_field("recruiting_criteria", &format!("only the {word} here")).is_valid
}

/// The people a topic names, as a word range: the first group of people with the
/// words that qualify it ("new nurses", "parents of toddlers", "small business owners").
fn find_audience(words: &[String]) -> Option<(usize, usize)> {
    let lower = keys(words);
    let head = lower.iter().position(|w| is_people(w))?;
    let modifier = |w: &str| !is_function_word(w) && !is_verb(w) && (!w.ends_with('s') || w.ends_with("ss"));
    let mut start = head;
    while start > 0
        && head - start < 3
        && modifier(&lower[start - 1])
        && !words[start - 1].ends_with([',', ';', ':', '.'])
        && lower[start - 1].chars().all(|c| c.is_alphanumeric() || c == '-')
    {
        start -= 1;
    }
    if start > 0 && lower[start - 1] == "our" {
        start -= 1;
    }
    let mut end = head + 1;
    let qualifier = ["of", "in", "from", "at", "with", "without", "under", "over", "aged", "across"];
    if !words[head].ends_with([',', ';', ':', '.']) && lower.get(end).is_some_and(|w| qualifier.contains(&w.as_str())) {
        let mut k = end + 1;
        if lower.get(k).is_some_and(|w| is_in(DETERMINERS, w)) {
            k += 1;
        }
        let mut content = 0;
        while k < lower.len() && content < 3 {
            let word = lower[k].as_str();
            if word.is_empty() || is_function_word(word) || is_verb(word) || is_progressive(word) {
                break;
            }
            content += 1;
            let terminal = is_plural(word)
                || words[k].starts_with(char::is_uppercase)
                || word.chars().any(|c| c.is_ascii_digit())
                || k + 1 == lower.len()
                || is_function_word(&lower[k + 1])
                || is_in(VERBS, &lower[k + 1])
                || words[k].ends_with([',', ';', ':', '.']);
            k += 1;
            if terminal {
                end = k;
                break;
            }
        }
    }
    Some((start, end))
}

// ---------------------------------------------------------------------------
// The writer.

const PROBLEMS_QUESTION: &str = "What problems, frustrations or workarounds do participants encounter, and why?";
const IMPROVEMENT_QUESTION: &str = "What would make the experience more valuable to them?";
const REVEAL: &str = "The interviews should reveal, from first-hand experience, what the people concerned need, \
    what gets in their way and where there are opportunities for improvement.";
const SUCCESS_CRITERIA: &str = "The interviews surface at least three recurring themes, each supported by concrete \
    examples from several participants, and lead to prioritised, actionable recommendations.";
const ANYONE: &str = "Adults (18+)";

/// A research question about a topic.
fn question_about(topic: &Topic) -> String {
    if let Some(question) = &topic.question {
        return question.clone();
    }
    match topic.kind {
        Kind::Clause => format!("What do participants' own experiences reveal about {}?", topic.text),
        Kind::Noun | Kind::Quoted => {
            format!("What do participants currently do, think and feel when it comes to {}?", topic.subject())
        }
        Kind::Statement => format!("How do participants experience {}?", topic.subject()),
        Kind::Question => topic.text.clone(),
    }
}

/// "Understand <topic>." (or the question to answer): the objective's first sentence.
fn objective_opening(topic: &Topic) -> String {
    match topic.kind {
        Kind::Question => {
            format!("Answer this question from the point of view of the people concerned: {}", topic.text)
        }
        Kind::Noun if (topic.list || topic.text.split(' ').count() <= 3) && !topic.text.to_lowercase().contains("experience") => {
            format!("Understand people's needs and experiences around {}.", topic.subject())
        }
        _ => format!("Understand {}.", topic.subject()),
    }
}

/// Who to interview: the audience the prompt names (a sentence saying whom to
/// interview, else the people of the topic), else adults.
fn recruiting(topic: &Topic, named: Option<String>) -> String {
    let about = match topic.kind {
        Kind::Question => format!("this question: {}", topic.text),
        _ => topic.subject(),
    };
    let mut candidates = Vec::new();
    if topic.kind != Kind::Question {
        let words = split_words(&topic.text);
        if let Some((start, end)) = find_audience(&words) {
            let mut audience = words[start..end].to_vec();
            if let Some(last) = audience.last_mut() {
                // "customers' experience": the customers.
                let bare = last.trim_end_matches([',', ';', ':', '.']);
                *last = bare.strip_suffix("'s").or_else(|| bare.strip_suffix('\'')).unwrap_or(bare).to_string();
            }
            let audience = audience.join(" ");
            let lower = keys(&words);
            // "how parents of toddlers choose a daycare": parents of toddlers who can speak about how they choose one.
            let opens_clause = (is_in(WH, &lower[0]) || lower[0] == "whether")
                && start >= 1
                && (start == 1 || (lower[0] == "how" && lower[1..start].iter().all(|w| is_in(HOW_MODS, w))));
            let predicate_follows = end < words.len()
                && !words[end - 1].ends_with([',', ';', ':', '\''])
                && !words[end - 1].ends_with("'s")
                && (is_aux(&lower[end]) || is_in(ADVERBS, &lower[end]) || !is_function_word(&lower[end]));
            let about = if topic.kind == Kind::Clause && start > 0 && opens_clause && predicate_follows {
                format!("{} they {}", words[..start].join(" "), words[end..].join(" "))
            } else {
                about.clone()
            };
            candidates.push((audience, about));
        }
    }
    if let Some(audience) = named {
        let same = candidates.first().is_some_and(|(topic_audience, _)| topic_audience.eq_ignore_ascii_case(&audience));
        if !same {
            candidates.insert(0, (audience, about.clone()));
        }
    }
    candidates.push((ANYONE.to_string(), about));
    candidates
        .into_iter()
        .map(|(audience, about)| {
            let audience = capitalize(&cut(&audience, AUDIENCE_CHARS));
            let lower = keys(&split_words(&audience));
            if lower.iter().any(|w| matches!(w.as_str(), "who" | "that" | "which" | "whose")) {
                let speak = format!("They should be able to speak from recent, first-hand experience about {about}");
                end_sentence(&format!("{} {speak}", end_sentence(&audience)))
            } else {
                end_sentence(&format!("{audience} who can speak from recent, first-hand experience about {about}"))
            }
        })
        .find(|text| context::check_field("recruiting_criteria", text).is_valid)
        .unwrap_or_else(|| format!("{ANYONE} with recent, first-hand experience of the topic of this study."))
}

/// "Our customers are busy parents. We want to find out why they abandon the
/// checkout.": why our customers abandon it. The first "they", "them" or "their"
/// of the topic stands for the people an earlier sentence names.
fn resolve_they(topic: &mut Topic, before: &[String]) {
    let mut words = split_words(&topic.text);
    let lower = keys(&words);
    let Some(at) = lower.iter().position(|w| matches!(w.as_str(), "they" | "them" | "their")) else {
        return;
    };
    // "how nurses choose shifts and what they value": the nurses.
    if !matches!(topic.kind, Kind::Clause | Kind::Noun) || find_audience(&words[..at]).is_some() {
        return;
    }
    let people = before.iter().rev().find_map(|sentence| {
        if let Some(audience) = recruiting_audience(sentence) {
            let audience_words = split_words(&audience);
            let audience_lower = keys(&audience_words);
            let end = audience_lower
                .iter()
                .position(|w| matches!(w.as_str(), "who" | "that" | "which" | "whose" | "with"))
                .unwrap_or(audience_words.len());
            let start = audience_lower[..end].iter().take_while(|w| w.chars().all(|c| c.is_ascii_digit())).count();
            return (start < end).then(|| audience_words[start..end].join(" "));
        }
        let sentence_words = split_words(sentence);
        let (start, end) = find_audience(&sentence_words)?;
        let audience = sentence_words[start..end].join(" ");
        let audience = audience.trim_end_matches([',', ';', ':', '.', '!', '?']);
        Some(if start == 0 { lower_first(audience) } else { audience.to_string() })
    });
    let Some(people) = people else {
        return;
    };
    let word = &words[at];
    let tail = &word[word.trim_end_matches(|c: char| !c.is_alphanumeric()).len()..];
    let head = &word[..word.len() - word.trim_start_matches(|c: char| !c.is_alphanumeric()).len()];
    words[at] = match lower[at].as_str() {
        "their" if people.ends_with('s') => format!("{head}{people}'{tail}"),
        "their" => format!("{head}{people}'s{tail}"),
        _ => format!("{head}{people}{tail}"),
    };
    topic.text = words.join(" ");
}

/// The deterministic writer: `(project_name, context)` from a prompt.
pub fn builtin(prompt: &str) -> (String, ContextFields) {
    let text = normalise(prompt);
    let all = sentences(&text);
    let analysed: Vec<Topic> = all.iter().map(|sentence| analyse(sentence)).collect();
    let audiences: Vec<Option<String>> = all.iter().map(|sentence| recruiting_audience(sentence)).collect();
    // A sentence that only says whom to interview is no topic.
    let only_recruiting = |i: usize| audiences[i].is_some() && analysed[i].lead.audience.is_none();
    let candidates: Vec<usize> = (0..all.len()).filter(|&i| !only_recruiting(i) && !analysed[i].empty).collect();
    let chosen = match candidates.first() {
        // A first sentence that only sets the scene ("We are a neobank.") gives way to one that says what to learn.
        Some(&first) if analysed[first].declarative => candidates
            .iter()
            .copied()
            .find(|&i| analysed[i].lead.stripped || analysed[i].question.is_some() || analysed[i].kind == Kind::Question)
            .or(Some(first)),
        Some(&first) => Some(first),
        None => None,
    };
    let named = chosen
        .and_then(|i| analysed[i].lead.audience.clone())
        .or_else(|| audiences.iter().flatten().next().cloned());
    let mut topic = match (chosen, &named) {
        (Some(i), _) => analysed[i].clone(),
        // Only whom to interview ("Interview nurses in rural hospitals."): their needs and experiences.
        (None, Some(audience)) => {
            let mut topic = analyse(&format!("Needs and experiences of {audience}"));
            topic.article = true;
            topic
        }
        (None, None) => analyse(""),
    };
    if let Some(i) = chosen {
        resolve_they(&mut topic, &all[..i]);
    }
    let topic = &topic;

    let mut questions = vec![question_about(topic)];
    let mut context_sentences = Vec::new();
    if let Some(i) = chosen.filter(|&i| analysed[i].lead.dropped_prefix >= 2) {
        context_sentences.push(all[i].clone());
    }
    for (i, sentence) in all.iter().enumerate() {
        if Some(i) == chosen || only_recruiting(i) || analysed[i].empty {
            continue;
        }
        let other = &analysed[i];
        let asks = other.question.is_some() || other.kind == Kind::Question;
        let useful = asks || (other.lead.stripped && other.kind != Kind::Statement);
        let question = question_about(other);
        if useful && questions.len() <= EXTRA_QUESTIONS && !questions.contains(&question) {
            questions.push(question);
        } else if !useful {
            context_sentences.push(sentence.clone());
        }
    }
    questions.push(PROBLEMS_QUESTION.to_string());
    questions.push(IMPROVEMENT_QUESTION.to_string());
    let research_questions =
        questions.iter().enumerate().map(|(n, q)| format!("{}. {q}", n + 1)).collect::<Vec<_>>().join("\n");

    let mut project_objective = format!("{} {REVEAL}", objective_opening(topic));
    if !context_sentences.is_empty() {
        let context = cut(&context_sentences.join(" "), CONTEXT_CHARS);
        project_objective.push_str(&format!(" Context from the brief: \"{}\"", end_sentence(&context)));
    }
    let project_objective = cut(&project_objective, MAX_TEXT);

    let recruiting_criteria = recruiting(topic, named);
    let name = cut(&capitalize(&topic.text), NAME_CHARS.min(MAX_NAME));
    // One space between words, whatever the prompt's punctuation left.
    let tidy = |text: &str| {
        text.lines().map(|line| line.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>().join("\n")
    };
    (
        tidy(&name),
        ContextFields {
            project_objective: tidy(&project_objective),
            research_questions: tidy(&research_questions),
            success_criteria: SUCCESS_CRITERIA.to_string(),
            recruiting_criteria: tidy(&recruiting_criteria),
        },
    )
}

const SYSTEM_PROMPT: &str = "You set up AI-moderated user research interviews. From the researcher's description, \
write the study's context. Answer with one JSON object with exactly these string keys: project_name (at most 80 \
characters), project_objective, research_questions (numbered, real questions), success_criteria, recruiting_criteria \
(a recruitable audience). No other keys, no Markdown.";

const FIELDS: [&str; 5] = ["project_name", "project_objective", "research_questions", "success_criteria", "recruiting_criteria"];

/// Strict parsing of the model's answer: exactly the five string fields within limits.
pub fn parse_model_answer(answer: &str) -> Result<(String, ContextFields), llm::LlmError> {
    let map = llm::parse_json_answer(answer)?;
    let values = llm::exact_string_fields(&map, &FIELDS, |key| if key == "project_name" { MAX_NAME } else { MAX_TEXT })?;
    let mut values = values.into_iter();
    let mut next = || values.next().unwrap_or_default();
    Ok((
        next(),
        ContextFields {
            project_objective: next(),
            research_questions: next(),
            success_criteria: next(),
            recruiting_criteria: next(),
        },
    ))
}

/// Which writer produced the fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Model,
    BuiltIn,
}

/// The model's fields when it is configured and answers usably in time; the
/// built-in writer's otherwise.
pub fn write(prompt: &str, llm_config: &LlmConfig) -> (String, ContextFields, Writer) {
    if llm_config.enabled() {
        match llm::complete(llm_config, SYSTEM_PROMPT, prompt).and_then(|answer| parse_model_answer(&answer)) {
            Ok((name, context)) => return (name, context, Writer::Model),
            Err(error) => eprintln!("generated project: {error}; using the built-in writer"),
        }
    }
    let (name, context) = builtin(prompt);
    (name, context, Writer::BuiltIn)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(prompt, project_name, first line of research_questions, recruiting_criteria)`;
    /// an empty expectation is not checked.
    const PROMPTS: &[(&str, &str, &str, &str)] = &[
        (
            "We want to learn how parents of toddlers choose a daycare.",
            "How parents of toddlers choose a daycare",
            "1. What do participants' own experiences reveal about how parents of toddlers choose a daycare?",
            "Parents of toddlers who can speak from recent, first-hand experience about how they choose a daycare.",
        ),
        (
            "We want to learn how parents of toddlers choose a daycare. Interview parents in big cities.",
            "How parents of toddlers choose a daycare",
            "",
            "Parents in big cities who can speak from recent, first-hand experience about how parents of toddlers choose a daycare.",
        ),
        (
            "How do people pick a bank?",
            "How people pick a bank",
            "1. How do people pick a bank?",
            "People who can speak from recent, first-hand experience about how they pick a bank.",
        ),
        (
            "Find out why users churn",
            "Why users churn",
            "1. What do participants' own experiences reveal about why users churn?",
            "Users who can speak from recent, first-hand experience about why they churn.",
        ),
        (
            "I'd like to understand what makes new nurses stay in their first job.",
            "What makes new nurses stay in their first job",
            "",
            "New nurses who can speak from recent, first-hand experience about what makes new nurses stay in their first job.",
        ),
        (
            "Our goal is to reduce churn among small business owners.",
            "How to reduce churn among small business owners",
            "1. What do participants' own experiences reveal about how to reduce churn among small business owners?",
            "",
        ),
        (
            "Onboarding experience of new nurses",
            "Onboarding experience of new nurses",
            "1. What do participants currently do, think and feel when it comes to the onboarding experience of new nurses?",
            "New nurses who can speak from recent, first-hand experience about the onboarding experience of new nurses.",
        ),
        (
            "Topics: pricing, delivery, support",
            "Pricing, delivery and support",
            "1. What do participants currently do, think and feel when it comes to pricing, delivery and support?",
            "Adults (18+) who can speak from recent, first-hand experience about pricing, delivery and support.",
        ),
        ("Topics:\n- pricing\n- delivery\n- support", "Pricing, delivery and support", "", ""),
        (
            "Checkout abandonment on our mobile app is rising and we do not know why",
            "Why checkout abandonment on our mobile app is rising",
            "",
            "",
        ),
        ("   SaaS onboarding!!! ", "SaaS onboarding", "", ""),
        (
            "coffee",
            "Coffee",
            "1. What do participants currently do, think and feel when it comes to coffee?",
            "Adults (18+) who can speak from recent, first-hand experience about coffee.",
        ),
        ("HOW DO PEOPLE PICK A BANK?", "How people pick a bank", "1. How do people pick a bank?", ""),
        ("we want to learn how parents choose a daycare", "How parents choose a daycare", "", ""),
        ("Help me understand how freelancers manage their taxes.", "How freelancers manage their taxes", "", ""),
        ("The research is about commuting habits of students in Berlin.", "Commuting habits of students in Berlin", "", ""),
        (
            "We are a neobank. We want to learn how young adults pick their first bank account. Interview students.",
            "How young adults pick their first bank account",
            "",
            "Students who can speak from recent, first-hand experience about how young adults pick their first bank account.",
        ),
        ("Why are users leaving after the free trial?", "Why users are leaving after the free trial", "1. Why are users leaving after the free trial?", ""),
        ("How does a nurse experience onboarding?", "How a nurse experiences onboarding", "", ""),
        ("Why did customers cancel their subscription?", "Why customers cancelled their subscription", "", ""),
        ("Is our pricing too complex for small teams?", "Whether our pricing is too complex for small teams", "", ""),
        ("Which features do power users miss most?", "Which features power users miss most", "", ""),
        (
            "Ask users why they cancel.",
            "Why users cancel",
            "",
            "Users who can speak from recent, first-hand experience about why they cancel.",
        ),
        ("As a bank, we want to find out how people compare savings accounts.", "How people compare savings accounts", "", ""),
        ("Improve the onboarding of new nurses", "How to improve the onboarding of new nurses", "", ""),
        ("What is the biggest barrier to switching banks?", "What the biggest barrier to switching banks is", "", ""),
        ("Our main question: why do students drop out of online courses?", "Why students drop out of online courses", "", ""),
        (
            "Hi! We're a fintech startup and we'd like to understand how freelancers manage invoices.",
            "How freelancers manage invoices",
            "",
            "",
        ),
        ("How much do people spend on coffee each week?", "How much people spend on coffee each week", "", ""),
        ("How do you choose your bank?", "How people choose their bank", "1. How do you choose your bank?", ""),
        ("Why don't new users finish onboarding?", "Why new users don't finish onboarding", "", ""),
        (
            "Our customers are mostly busy parents.\nWe want to find out why they abandon the checkout.",
            "Why our customers abandon the checkout",
            "",
            "Our customers who can speak from recent, first-hand experience about why they abandon the checkout.",
        ),
        (
            "Talk to 10 small business owners who switched accounting software in the last year about what made them switch.",
            "What made small business owners switch",
            "",
            "10 small business owners who switched accounting software in the last year. They should be able to speak \
             from recent, first-hand experience about what made small business owners switch.",
        ),
        ("Interview parents in big cities.", "Needs and experiences of parents in big cities", "", ""),
        ("We sell coffee subscriptions and many customers cancel after two months.", "", "", ""),
        ("I'd like to understand the reasons why older adults (65+) avoid online banking - and what would change their minds.", "", "", ""),
        ("Is it worth building a mobile app for our B2B customers, or do they prefer the web?", "", "", ""),
        ("Wie wählen Eltern eine Kita aus?", "Wie wählen Eltern eine Kita aus?", "1. Wie wählen Eltern eine Kita aus?", ""),
        ("Background: we run a bike-sharing service in Lyon.\n\nGoal: understand why commuters stop renting bikes in winter.\nParticipants: regular commuters aged 25-45.", "Why commuters stop renting bikes in winter", "", ""),
        ("Why churn?", "Why churn?", "1. Why churn?", ""),
        (
            "Does the new checkout flow confuse first-time buyers?",
            "Whether the new checkout flow confuses first-time buyers",
            "1. Does the new checkout flow confuse first-time buyers?",
            "",
        ),
        ("Who are our most loyal customers and what do they value?", "Who our most loyal customers are and what they value", "", ""),
        ("How will remote work change office design?", "How remote work will change office design", "", ""),
        (
            "We've noticed that many trial users never invite teammates.",
            "Why many trial users never invite teammates",
            "",
            "Trial users who can speak from recent, first-hand experience about why many trial users never invite teammates.",
        ),
        (
            "Nurses are quitting in their first year.",
            "Why nurses are quitting in their first year",
            "",
            "Nurses who can speak from recent, first-hand experience about why they are quitting in their first year.",
        ),
        (
            "Barriers that stop patients from using telehealth",
            "Barriers that stop patients from using telehealth",
            "",
            "Patients who can speak from recent, first-hand experience about barriers that stop patients from using telehealth.",
        ),
        ("Should we add a subscription plan?", "Whether we should add a subscription plan", "", ""),
        (
            "What are the main pain points of freelance designers when invoicing clients?",
            "What the main pain points of freelance designers are when invoicing clients",
            "",
            "",
        ),
        (
            "Participants should be adults who commute by bike daily. We want to learn what keeps them cycling in winter.",
            "What keeps adults cycling in winter",
            "",
            "Adults who commute by bike daily. They should be able to speak from recent, first-hand experience about \
             what keeps adults cycling in winter.",
        ),
        ("Interview nurses. We want to learn about their onboarding.", "Nurses' onboarding", "", ""),
        ("We are launching a meal kit in Spain next year.", "", "1. How do participants experience the context in which we are launching a meal kit in Spain next year?", ""),
        ("Study habits of medical students", "Study habits of medical students", "", ""),
        ("Study how students prepare for exams.", "How students prepare for exams", "", ""),
        ("I need to understand why our NPS dropped last quarter; interview detractors.", "Why our NPS dropped last quarter", "", ""),
        ("Speak with teachers who left the profession about why they left.", "Why teachers left", "", ""),
        ("Comment les parents choisissent-ils une crèche ?", "", "", ""),
        ("Café-Kultur in Wien", "Café-Kultur in Wien", "", ""),
        ("", "The subject of the study", "", ""),
        ("???", "The subject of the study", "", ""),
    ];

    /// Words and phrases that gave the old writer away ("Understand we want to learn ...").
    const LEAD_INS: &[&str] = &[
        "we want", "i want", "i'd like", "we'd like", "i would like", "we would like", "our goal", "our main question",
        "help me", "help us", "the research is about", "find out", "topics:", "understand we", "understand i ",
        "understand our goal", "understand find", "understand understand", "experience how", "experience why",
        "experience we", "experience i ", "about we ", "about i ", "about find", "can you", "interview parents in",
        "around how", "around why", "reveal about we", "ask users",
    ];

    /// The fields, each without the quoted brief (which quotes the prompt as it is).
    fn fields(prompt: &str) -> Vec<(&'static str, String)> {
        let (name, context) = builtin(prompt);
        let objective = match context.project_objective.split_once(" Context from the brief: \"") {
            Some((objective, quote)) => {
                assert!(quote.ends_with('"'), "{quote}");
                objective.to_string()
            }
            None => context.project_objective.clone(),
        };
        vec![
            ("project_name", name),
            ("project_objective", objective),
            ("research_questions", context.research_questions),
            ("success_criteria", context.success_criteria),
            ("recruiting_criteria", context.recruiting_criteria),
        ]
    }

    fn check_text(prompt: &str, field: &str, text: &str) {
        let lower = text.to_lowercase();
        for lead_in in LEAD_INS {
            assert!(!lower.contains(lead_in), "{prompt:?}: {field} contains {lead_in:?}: {text}");
        }
        for bad in ["  ", "?.", ".?", "..", " ,", " .", " ?", "??", ",,", "\n\n", "“”", "()"] {
            assert!(!text.contains(bad), "{prompt:?}: {field} contains {bad:?}: {text}");
        }
        assert_eq!(text, text.trim(), "{prompt:?}: {field} has surrounding space");
        assert_eq!(text.matches('(').count(), text.matches(')').count(), "{prompt:?}: {field}: {text}");
        let words: Vec<String> = text.split_whitespace().map(key).filter(|w| !w.is_empty()).collect();
        for pair in words.windows(2) {
            assert!(pair[0] != pair[1], "{prompt:?}: {field} repeats {:?}: {text}", pair[0]);
        }
    }

    /// Each sentence (and each numbered question) opens with a capital letter or a
    /// digit and the text ends with punctuation.
    fn check_sentences(prompt: &str, field: &str, text: &str) {
        assert!(text.ends_with(['.', '?', '"']), "{prompt:?}: {field} does not end a sentence: {text}");
        let mut starts = vec![0];
        for (at, _) in text.match_indices(". ").chain(text.match_indices("? ")).chain(text.match_indices("\n")) {
            starts.push(at + if text[at..].starts_with('\n') { 1 } else { 2 });
        }
        for start in starts {
            let mut rest = &text[start..];
            // "2. What ...": the number of a research question.
            if let Some((number, question)) = rest.split_once(". ") {
                if field == "research_questions" && number.chars().all(|c| c.is_ascii_digit()) {
                    rest = question;
                }
            }
            let first = rest.chars().next().unwrap_or('A');
            // "e.g. costs" is no sentence.
            if text[..start].ends_with("e.g. ") || text[..start].ends_with("i.e. ") {
                continue;
            }
            assert!(!first.is_lowercase(), "{prompt:?}: {field}: a sentence opens in lower case at {start}: {text}");
        }
    }

    #[test]
    fn prompts_of_every_style_give_grammatical_fields() {
        for (prompt, name, first_question, recruiting) in PROMPTS {
            let (written_name, context) = builtin(prompt);
            assert_eq!((written_name.clone(), context.clone()), builtin(prompt), "deterministic");
            if !name.is_empty() {
                assert_eq!(&written_name, name, "{prompt:?}");
            }
            if !first_question.is_empty() {
                assert_eq!(context.research_questions.lines().next(), Some(*first_question), "{prompt:?}");
            }
            if !recruiting.is_empty() {
                assert_eq!(&context.recruiting_criteria, recruiting, "{prompt:?}");
            }
            assert!(written_name.chars().count() <= NAME_CHARS, "{written_name}");
            assert!(!written_name.starts_with(char::is_lowercase), "{written_name}");
            assert!(!written_name.ends_with(['.', ',', ';', ':', '!']), "{written_name}");
            assert!(
                context.project_objective.starts_with("Understand ") || context.project_objective.starts_with("Answer this question"),
                "{prompt:?}: {}",
                context.project_objective
            );
            for (field, verdict) in context::check_rules(&context) {
                assert!(verdict.is_valid, "{prompt:?}: {field}: {verdict:?} in {context:?}");
            }
            for (i, line) in context.research_questions.lines().enumerate() {
                assert!(line.starts_with(&format!("{}. ", i + 1)) && line.ends_with('?'), "{prompt:?}: {line}");
            }
            for (field, text) in fields(prompt) {
                check_text(prompt, field, &text);
                if field != "project_name" {
                    check_sentences(prompt, field, &text);
                }
            }
        }
    }

    #[test]
    fn the_readme_prompt() {
        let (name, context) = builtin("We want to learn how parents of toddlers choose a daycare.");
        assert_eq!(name, "How parents of toddlers choose a daycare");
        assert_eq!(
            context.project_objective,
            "Understand how parents of toddlers choose a daycare. The interviews should reveal, from first-hand \
             experience, what the people concerned need, what gets in their way and where there are opportunities \
             for improvement."
        );
        assert_eq!(
            context.research_questions,
            "1. What do participants' own experiences reveal about how parents of toddlers choose a daycare?\n\
             2. What problems, frustrations or workarounds do participants encounter, and why?\n\
             3. What would make the experience more valuable to them?"
        );
        // The built-in interviewer introduces the conversation with the objective's first sentence.
        assert_eq!(
            crate::sessions::interviewer::topic(&context.project_objective).as_deref(),
            Some("how parents of toddlers choose a daycare")
        );
    }

    #[test]
    fn several_questions_and_the_brief_are_kept() {
        let (_, context) = builtin(
            "We run a coworking space. We want to understand how remote teams run meetings. \
             We also want to know which tools they use. What frustrates them most?",
        );
        assert_eq!(
            context.research_questions,
            "1. What do participants' own experiences reveal about how remote teams run meetings?\n\
             2. What do participants' own experiences reveal about which tools they use?\n\
             3. What frustrates them most?\n\
             4. What problems, frustrations or workarounds do participants encounter, and why?\n\
             5. What would make the experience more valuable to them?"
        );
        assert!(context.project_objective.ends_with(" Context from the brief: \"We run a coworking space.\""));
    }

    #[test]
    fn long_prompts_are_cut_at_a_phrase_or_word() {
        let sentence = "We want to understand how hospital nurses in large university clinics across Germany, \
            Austria and Switzerland organise the handover of patients between the night and the morning shift, \
            including the tools, checklists and workarounds they rely on when the ward is understaffed. ";
        let prompt = format!("{sentence}{}", "Important details often get lost during the handover. ".repeat(60));
        let (name, context) = builtin(&prompt);
        assert_eq!(name, "How hospital nurses in large university clinics across Germany");
        let first = context.project_objective.split(". ").next().unwrap();
        assert!(first.chars().count() <= TOPIC_CHARS + 11, "{first}");
        assert!(context.project_objective.chars().count() <= MAX_TEXT);
        for (field, verdict) in context::check_rules(&context) {
            assert!(verdict.is_valid, "{field}: {verdict:?}");
        }
        assert_eq!(cut("one two three four five six", 12), "one two");
        assert_eq!(cut("pricing, delivery and the support of", 34), "pricing, delivery and the support");
    }

    #[test]
    fn questions_become_noun_clauses() {
        let clause = |q: &str| noun_clause(&split_words(trim_end_punctuation(q)), true);
        assert_eq!(clause("How do people pick a bank?").as_deref(), Some("how people pick a bank"));
        assert_eq!(clause("Why are users leaving?").as_deref(), Some("why users are leaving"));
        assert_eq!(clause("What is driving churn?").as_deref(), Some("what is driving churn"));
        assert_eq!(clause("How does the price plan affect churn?").as_deref(), Some("how the price plan affects churn"));
        assert_eq!(clause("Do people trust robo-advisors?").as_deref(), Some("whether people trust robo-advisors"));
        assert_eq!(clause("Why do users not finish onboarding?").as_deref(), Some("why users do not finish onboarding"));
        assert_eq!(clause("How can onboarding be improved?").as_deref(), Some("how onboarding can be improved"));
        assert_eq!(clause("To what extent do nurses trust the app?").as_deref(), Some("to what extent nurses trust the app"));
        assert_eq!(clause("Why did families move away?").as_deref(), Some("why families moved away"));
        assert_eq!(clause("Does the app xyzzy users?"), None, "no known verb: asked as it is");
    }

    #[test]
    fn any_prompt_gives_fields_that_pass_the_rules() {
        const WORDS: &[&str] = &[
            "we", "want", "to", "learn", "how", "do", "does", "did", "people", "parents", "nurses", "pick", "a", "?", ".",
            ",", ":", "!", "why", "what", "is", "are", "the", "of", "in", "Topics:", "\n- ", "\n", "1.", "I'd", "like",
            "understand", "our", "goal", "their", "they", "them", "ä", "İstanbul", "who", "and", "or", "not", "don't",
            "(", ")", "\"", "'", "e.g.", "interview", "about", "ask", "Participants:", "coffee", "SaaS", "18+", "if",
            "can", "have", "used", "it", "there", "many", "much", "…", "？", "we've noticed that", "Goal:", ";", "\t",
            "and we don't know why", "improve", "-",
        ];
        let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
        let mut random = move |below: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize
        };
        for _ in 0..3_000 {
            let mut prompt = String::new();
            for _ in 0..random(30) {
                if random(3) > 0 {
                    prompt.push(' ');
                }
                prompt.push_str(WORDS[random(WORDS.len())]);
            }
            let (name, context) = builtin(&prompt);
            assert!(!name.is_empty() && name.chars().count() <= NAME_CHARS, "{prompt:?}: {name:?}");
            for (field, verdict) in context::check_rules(&context) {
                assert!(verdict.is_valid, "{prompt:?}: {field}: {context:?}");
            }
            for text in [&name, &context.project_objective, &context.research_questions, &context.recruiting_criteria] {
                assert!(!text.contains("  ") && text.trim() == text, "{prompt:?}: {text:?}");
            }
        }
    }
}
