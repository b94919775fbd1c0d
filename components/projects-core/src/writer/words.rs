//! The built-in writer's word lists (lower case) and the small helpers that look words up in them.

pub(super) const WH: &[&str] = &["how", "why", "what", "which", "who", "whom", "whose", "when", "where", "whether"];
pub(super) const HOW_MODS: &[&str] =
    &["much", "many", "often", "long", "far", "well", "exactly", "quickly", "easily", "frequently", "likely", "soon"];
pub(super) const DO: &[&str] = &["do", "does", "did"];
pub(super) const DO_NOT: &[&str] = &["don't", "doesn't", "didn't"];
pub(super) const BE: &[&str] = &["is", "are", "was", "were", "isn't", "aren't", "wasn't", "weren't"];
pub(super) const HAVE: &[&str] = &["has", "have", "had", "hasn't", "haven't", "hadn't"];
pub(super) const MODALS: &[&str] = &[
    "can", "could", "will", "would", "should", "might", "must", "may", "can't", "cannot", "won't", "wouldn't",
    "shouldn't", "couldn't",
];
pub(super) const PRONOUNS: &[&str] = &[
    "i", "we", "you", "they", "he", "she", "it", "one", "someone", "somebody", "anyone", "anybody", "everyone",
    "everybody", "this", "that", "there",
];
pub(super) const SUBJECT_PRONOUNS: &[&str] = &["i", "we", "you", "they", "he", "she"];
pub(super) const CONTRACTIONS: &[&str] = &[
    "it's", "we're", "they're", "there's", "we've", "i'm", "i've", "we'll", "they've", "that's", "he's", "she's",
];
pub(super) const DETERMINERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "each", "every", "my", "our", "your", "their", "his", "her",
    "its", "some", "any", "no", "most", "many", "all", "both", "few", "several", "other",
];
pub(super) const PREPOSITIONS: &[&str] = &[
    "of", "in", "on", "at", "for", "with", "from", "by", "about", "into", "to", "under", "over", "without", "across",
    "after", "before", "during", "between", "among", "around", "through", "within", "per", "via", "like",
];
const CONJUNCTIONS: &[&str] = &["and", "or", "but", "nor", "so", "yet", "than", "as", "if", "because", "while", "then", "not"];
const OTHER_FUNCTION_WORDS: &[&str] = &[
    "there", "here", "very", "too", "also", "just", "only", "more", "less", "me", "us", "them", "him", "is", "are",
    "be", "it", "we", "i", "you", "they", "who", "what", "how", "why",
];
pub(super) const ADVERBS: &[&str] = &[
    "really", "actually", "usually", "typically", "generally", "normally", "currently", "still", "ever", "never",
    "always", "often", "sometimes", "first", "best", "most", "even", "already", "also", "just", "mostly", "rarely",
    "finally", "eventually", "ultimately", "today", "now", "not",
];
/// Words that open the predicate after a form of "to be".
pub(super) const PREDICATE_WORDS: &[&str] = &[
    "too", "so", "very", "really", "more", "less", "still", "not", "always", "never", "often", "also", "already",
    "happy", "unhappy", "satisfied", "dissatisfied", "willing", "unwilling", "able", "unable", "likely", "unlikely",
    "ready", "aware", "unaware", "interested", "comfortable", "uncomfortable", "confident", "clear", "unclear", "easy",
    "hard", "difficult", "important", "useful", "worth", "enough", "good", "bad", "better", "worse", "different",
    "similar", "familiar", "open", "afraid", "concerned", "frustrated", "confused", "successful", "effective",
    "expensive", "cheap", "fair", "affordable", "available", "necessary", "right", "wrong", "true", "possible",
    "relevant", "helpful", "popular", "common", "rare", "slow", "fast", "high", "low", "loyal", "worried",
];
/// Nouns ending in "-ing" (not a progressive verb).
pub(super) const ING_NOUNS: &[&str] = &[
    "onboarding", "pricing", "shopping", "banking", "marketing", "training", "housing", "building", "booking",
    "parking", "packaging", "clothing", "advertising", "funding", "hiring", "billing", "planning", "learning",
    "something", "nothing", "everything", "anything", "morning", "evening", "feeling", "meeting", "setting",
    "offering", "listing", "spring", "thing", "wedding", "clothing", "ticketing", "checking", "saving", "savings",
    "streaming", "gaming", "coaching", "tutoring", "recruiting", "scheduling", "dating", "commuting", "cooking",
    "reading", "writing", "sharing", "hosting", "messaging", "matching", "tracking", "staffing", "lending",
];
pub(super) const PARTICIPLES: &[&str] = &[
    "made", "chosen", "taken", "gone", "done", "been", "got", "gotten", "seen", "found", "bought", "paid", "left",
    "become", "begun", "grown", "known", "thought", "felt", "built", "spent", "come", "given", "written", "driven",
    "sold", "told", "said", "held", "brought", "lost", "won", "met", "understood", "kept", "run", "set", "put", "cut",
];
/// Verbs that are seldom nouns.
pub(super) const VERBS: &[&str] = &[
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
pub(super) const NOUN_VERBS: &[&str] = &[
    "use", "experience", "work", "change", "plan", "search", "look", "travel", "order", "book", "price", "support",
    "help", "care", "test", "design", "review", "rate", "value", "like", "love", "hate", "drive", "ride", "fly",
    "play", "read", "watch", "listen", "eat", "drink", "cook", "live", "talk", "walk", "run", "set", "put", "open",
    "close", "call", "check", "report", "track", "measure", "drop", "fit", "sign", "log", "answer", "view", "shop",
    "visit", "return", "transfer", "save", "budget", "invest", "document", "schedule", "list", "ask", "stay",
    "feedback", "switch", "struggle", "need", "study", "win",
];
/// Imperatives that state a goal: "Improve onboarding" is about "how to improve onboarding".
pub(super) const GOAL_VERBS: &[&str] = &[
    "improve", "increase", "reduce", "redesign", "launch", "build", "create", "optimise", "optimize", "grow",
    "boost", "fix", "simplify", "streamline", "decide", "choose", "pick", "select", "prioritise", "prioritize",
    "make", "get", "encourage", "convince", "attract", "retain", "win", "reach", "engage", "motivate", "rethink",
    "replace", "migrate", "lower", "raise", "prevent", "avoid", "convert", "develop", "expand", "enter",
    "personalise", "personalize", "automate", "hire", "recruit", "onboard", "keep", "help", "sell", "design",
];
/// Plural nouns that name no people, although the validate-context rule knows their singular.
pub(super) const NOT_PEOPLE: &[&str] = &["decisions", "segments", "personas", "audiences"];
pub(super) const IRREGULAR_PAST: &[(&str, &str)] = &[
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

pub(super) const SUBJECTS: &[&str] = &[
    "we", "i", "our team", "my team", "the team", "our company", "the company", "our client", "the client",
    "our product team", "our research team", "our ux team", "our startup", "the business", "management",
];
pub(super) const LEAD_ADVERBS: &[&str] = &["", "really", "also", "mainly", "primarily", "basically", "just", "now", "first", "all"];
pub(super) const DESIRES: &[&str] = &[
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
pub(super) const WANTS: &[&str] = &["want", "wants", "need", "needs", "would like", "'d like", "are after", "'re after"];
pub(super) const WANTED: &[&str] = &[
    "insights into", "insights on", "insight into", "to know", "a better understanding of", "an understanding of",
    "clarity on", "data on", "feedback on", "input on", "to hear about",
];
pub(super) const BE_FORMS: &[&str] = &["are", "am", "is", "'re", "'m", "'s"];
pub(super) const STATES: &[&str] = &[
    "curious about", "curious to", "curious", "interested in", "keen to", "keen on", "eager to", "wondering about",
    "wondering", "researching", "studying", "exploring", "investigating", "looking into", "looking at",
    "focusing on", "focused on", "trying to", "looking to", "hoping to", "planning to", "working on",
    "doing research on", "doing research into", "running a study on", "running research on", "running interviews on",
    "conducting research on", "after", "asking ourselves", "asking myself",
];
pub(super) const GOAL_DETERMINERS: &[&str] = &[
    "our", "my", "the", "a", "one", "this", "the main", "our main", "my main", "the key", "a key", "our key",
    "the big", "our big", "the central", "the overall", "our overall", "the primary", "our primary",
];
pub(super) const GOAL_NOUNS: &[&str] = &[
    "goal", "aim", "objective", "purpose", "focus", "question", "research question", "key question", "task",
    "mission", "idea", "hope", "intention", "challenge", "research goal", "research objective", "study goal",
    "interest", "problem", "topic", "subject",
];
pub(super) const GOAL_MIDDLES: &[&str] = &[
    "", "of this study", "of this project", "of the study", "of the project", "of this research",
    "of the research", "of the interviews", "here", "for this study", "for this project", "we have", "i have",
];
pub(super) const GOAL_TAILS: &[&str] = &["is to", "is", "will be to", "will be", "would be to", "would be", "is about", ":", "-"];
pub(super) const STUDY_DETERMINERS: &[&str] = &["the", "this", "our", "my"];
pub(super) const STUDY_NOUNS: &[&str] =
    &["research", "study", "project", "interviews", "interview", "survey", "work", "research project"];
pub(super) const STUDY_TAILS: &[&str] = &[
    "is about", "is all about", "is on", "is into", "is focused on", "focuses on", "looks at", "looks into",
    "will look at", "will look into", "explores", "will explore", "investigates", "examines", "covers",
    "should cover", "aims to", "wants to", "should", "will", "is meant to", "is to", "tries to", "seeks to",
    "centers on", "centres on", "is looking at", "is looking into", "is exploring", "are about", "should explore",
];
pub(super) const FILLERS: &[&str] = &[
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
pub(super) const OBSERVED: &[&str] = &[
    "'ve noticed", "have noticed", "noticed", "notice", "'ve observed", "have observed", "observed", "'ve seen",
    "have seen", "see", "saw", "found", "'ve found", "have found", "know", "realised", "realized", "'ve realised",
    "'ve realized", "have realised", "have realized", "believe", "suspect", "'ve heard", "have heard", "heard",
    "are seeing", "'re seeing", "keep hearing", "keep seeing", "'ve learned", "have learned", "learned",
];
pub(super) const PRE_VERB: &[&str] = &["", "to", "better", "to better", "really", "to really", "fully", "to fully", "more"];
pub(super) const RESEARCH_VERBS: &[&str] = &[
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
pub(super) const RESEARCH_VERBS_IF_FOLLOWED: &[&str] = &[
    "learn", "learning", "know", "knowing", "see", "study", "studying", "research", "researching", "test",
    "validate", "map", "map out", "analyse", "analyze", "analysing", "analyzing", "clarify", "measure", "check",
    "hear", "capture", "document", "explain", "describe", "ask", "answer",
];
pub(super) const FOLLOWERS: &[&str] = &[
    "how", "why", "what", "which", "who", "whom", "whose", "when", "where", "whether", "if", "about", "more", "the",
    "our", "their", "a", "an", "your", "my", "what's", "how's", "whether", "to",
];
pub(super) const POST_VERB: &[&str] = &["", "better", "more deeply", "in depth", "in detail", "exactly", "more about", "about", "more"];
pub(super) const INTERVIEW_VERBS: &[&str] = &[
    "interview", "interviews with", "talk to", "talk with", "speak to", "speak with", "ask", "chat with",
    "run interviews with", "conduct interviews with", "do interviews with", "hold interviews with", "interviewing",
    "talking to", "talking with", "speaking with", "speaking to", "asking", "recruit", "recruiting", "target",
];
pub(super) const INTERVIEW_TOPIC_MARKERS: &[&str] = &["about", "regarding", "around", "on"];
pub(super) const RECRUIT_OPENINGS: &[&str] = &[
    "participants", "audience", "target audience", "target group", "the target group", "the audience",
    "recruiting", "recruitment", "who to interview", "interviewees", "respondents", "the participants",
];
pub(super) const RECRUIT_LINKS: &[&str] = &["", ":", "are", "should be", "must be", "will be", "is", "-", "should include", "include"];
pub(super) const LABEL_WORDS: &[&str] = &[
    "topic", "topics", "subject", "theme", "themes", "focus", "area", "areas", "research", "study", "project", "goal",
    "goals", "aim", "objective", "objectives", "question", "questions", "interview", "interviews", "key", "main",
    "context", "brief", "idea", "survey", "scope", "about", "re", "title", "description", "summary", "overview",
    "problem", "issue", "challenge", "the", "our", "my",
];

pub(super) fn is_in(list: &[&str], word: &str) -> bool {
    list.contains(&word)
}

pub(super) fn is_aux(word: &str) -> bool {
    is_in(DO, word) || is_in(DO_NOT, word) || is_in(BE, word) || is_in(HAVE, word) || is_in(MODALS, word)
}

pub(super) fn is_function_word(word: &str) -> bool {
    is_in(DETERMINERS, word)
        || is_in(PREPOSITIONS, word)
        || is_in(CONJUNCTIONS, word)
        || is_in(OTHER_FUNCTION_WORDS, word)
        || is_in(WH, word)
        || is_in(HOW_MODS, word)
        || is_aux(word)
}

pub(super) fn is_verb(word: &str) -> bool {
    is_in(VERBS, word) || is_in(NOUN_VERBS, word)
}

/// A word's lower-case core: surrounding punctuation dropped, inner apostrophes and hyphens kept.
pub(super) fn key(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

pub(super) fn keys(words: &[String]) -> Vec<String> {
    words.iter().map(|w| key(w)).collect()
}

pub(super) fn split_words(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}
