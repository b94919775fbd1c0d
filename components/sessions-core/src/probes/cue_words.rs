//! What an answer does, told by its words (docs/sessions.md, "The way of
//! asking"): it generalises ("always", "everyone"), judges, feels or predicts
//! ("frustrating", "love", "will"), narrates ("last week", "we tried"),
//! compares ("than", "compared to"), worries ("afraid", "risk") or wishes
//! ("I wish", "ideally"); whether it already gives a concrete example ("for
//! example", "yesterday"); and what sets two things against each other
//! ("rather than", "instead of").
//!
//! Per language: single words (normalized and sorted, looked up by binary
//! search) and phrases of two or three words (normalized, space-separated).
//! Arabic, Russian, Japanese, Hebrew, Greek and Ukrainian have no cue lists:
//! their probes keep the rotation. Only lists live here: which list tells
//! which cue, and the rules that read them, are `cues.rs`'s.

use projects_core::Language;

pub fn generalising_words(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "always", "anybody", "anyone", "commonly", "consistently", "constantly", "everybody", "everyone",
            "everything", "everywhere", "frequently", "generally", "habitually", "invariably", "never", "nobody",
            "normally", "often", "regularly", "routinely", "tend", "tends", "typically", "universally", "usually",
            "whenever",
        ],
        Language::De => &[
            "allgemein", "generell", "gewöhnlich", "grundsätzlich", "häufig", "immer", "jedermann", "meistens",
            "nie", "niemals", "niemand", "normalerweise", "oft", "regelmäßig", "stets", "ständig", "typischerweise",
            "überall", "üblicherweise",
        ],
        Language::Fr => &[
            "constamment", "d'habitude", "fréquemment", "généralement", "habituellement", "jamais", "normalement",
            "partout", "régulièrement", "souvent", "systématiquement", "toujours", "typiquement",
        ],
        Language::Es => &[
            "constantemente", "frecuentemente", "generalmente", "habitualmente", "jamás", "nadie", "normalmente",
            "nunca", "regularmente", "siempre", "solemos", "suele", "suelen", "suelo", "típicamente", "usualmente",
        ],
        Language::It => &[
            "costantemente", "frequentemente", "generalmente", "mai", "normalmente", "ognuno", "regolarmente",
            "sempre", "solitamente", "spesso", "tipicamente", "tutti",
        ],
        _ => &[],
    }
}

pub fn generalising_phrases(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "all the time", "as a rule", "by and large", "every time", "in general", "more often than",
            "most of the time", "most people", "on the whole",
        ],
        Language::De => &["alle menschen", "die meisten", "im allgemeinen", "in der regel", "jedes mal"],
        Language::Fr => &["chaque fois", "en général", "la plupart", "tout le monde", "à chaque fois"],
        Language::Es => &["cada vez", "en general", "la mayoría", "por lo general", "todo el mundo"],
        Language::It => &["di solito", "in generale", "la maggior parte", "ogni volta", "tutti quanti"],
        _ => &[],
    }
}

pub fn judging_words(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "amazing", "angry", "annoyed", "annoying", "appreciate", "awesome", "awful", "bad", "believe", "boring",
            "brilliant", "comfortable", "confident", "crucial", "disappointed", "disappointing", "dislike",
            "distrust", "enjoy", "enjoyed", "essential", "ethical", "excellent", "excited", "exciting",
            "exhausting", "expect", "fair", "fantastic", "feel", "feels", "frustrated", "frustrating",
            "frustration", "fulfilling", "fun", "future", "glad", "good", "grateful", "great", "happy", "hate",
            "hated", "hates", "helpful", "hopeful", "horrible", "important", "impressed", "impressive",
            "irritating", "likely", "love", "loved", "loves", "might", "must", "optimistic", "ought",
            "overwhelming", "perfect", "pessimistic", "poor", "predict", "problematic", "proud", "rewarding", "sad",
            "satisfying", "sceptical", "should", "shouldn't", "skeptical", "someday", "soon", "stressed",
            "stressful", "surprised", "surprising", "tedious", "terrible", "trust", "uncomfortable", "unethical",
            "unfair", "unhelpful", "unlikely", "upset", "useful", "useless", "valuable", "weird", "will",
            "wonderful", "worthless", "wrong",
        ],
        Language::De => &[
            "bestimmt", "enttäuschend", "enttäuscht", "erwarte", "fair", "falsch", "freue", "froh", "frustrierend",
            "gefällt", "genieße", "gerecht", "glücklich", "gut", "gute", "guten", "hasse", "könnte", "könnten",
            "künftig", "liebe", "mag", "muss", "müssen", "müsste", "nervig", "notwendig", "notwendige", "nötig",
            "nötige", "nützlich", "problematisch", "schlecht", "schlechte", "schlimm", "schrecklich", "sinnlos",
            "sinnvoll", "sinnvolle", "soll", "sollen", "sollte", "sollten", "toll", "traurig", "unfair",
            "ungerecht", "unwichtig", "vermutlich", "vertraue", "wahrscheinlich", "werden", "wichtig", "wichtige",
            "wichtigen", "wird", "wütend", "zukunft", "ärgerlich", "ärgert",
        ],
        Language::Fr => &[
            "absurde", "adore", "agaçant", "aime", "apprécie", "avenir", "bientôt", "confiance", "content",
            "deviendra", "devraient", "devrait", "devrions", "doit", "doivent", "décevant", "déteste", "déçu",
            "déçue", "essentiel", "essentielle", "essentielles", "essentiels", "faudrait", "faut", "frustrant",
            "futur", "génial", "heureuse", "heureux", "horrible", "important", "importante", "importantes",
            "importants", "inacceptable", "injuste", "inutile", "inutiles", "mauvais", "mauvaise", "nécessaire",
            "nécessaires", "pourraient", "pourrait", "probablement", "problématique", "scandaleux", "sera",
            "seront", "sûrement", "terrible", "triste", "utile", "utiles", "énervant",
        ],
        Language::Es => &[
            "confianza", "confío", "contento", "debe", "debemos", "deben", "debería", "deberían", "decepcionado",
            "encanta", "enojado", "esencial", "feliz", "frustrante", "futuro", "genial", "gusta", "horrible",
            "importante", "importantes", "inaceptable", "injusta", "injusto", "inútil", "justa", "justo", "mala",
            "malo", "molesto", "necesaria", "necesario", "necesarios", "odio", "podría", "podrían", "probablemente",
            "pronto", "seguramente", "será", "serán", "terrible", "triste", "vergüenza", "útil", "útiles",
        ],
        Language::It => &[
            "adoro", "apprezzo", "arrabbiato", "bella", "bello", "bisogna", "brutto", "contenta", "contento",
            "delusa", "deluso", "deve", "devono", "dobbiamo", "dovrebbe", "dovrebbero", "essenziale", "fastidioso",
            "felice", "fiducia", "frustrante", "futuro", "giusta", "giusto", "importante", "importanti", "ingiusto",
            "inutile", "necessari", "necessaria", "necessario", "odio", "orribile", "ottimo", "pessimo", "piace",
            "potrebbe", "potrebbero", "presto", "probabilmente", "saranno", "sarà", "sbagliata", "sbagliato",
            "sicuramente", "terribile", "triste", "utile", "utili",
        ],
        _ => &[],
    }
}

pub fn judging_phrases(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &["going to", "i believe", "i feel", "i think", "in the future"],
        Language::De => &["ich denke", "ich finde", "ich glaube", "in zukunft"],
        Language::Fr => &["je crois", "je pense", "je trouve", "à l'avenir"],
        Language::Es => &["creo que", "en el futuro", "me parece", "pienso que"],
        Language::It => &["credo che", "in futuro", "mi sembra", "penso che"],
        _ => &[],
    }
}

pub fn narrating_words(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &["afterwards", "ago", "eventually", "later", "once", "recently", "yesterday"],
        Language::De => &[
            "damals", "einmal", "gestern", "kürzlich", "letztens", "neulich", "später", "vorgestern", "war", "waren",
        ],
        Language::Fr => &[
            "avait", "c'était", "ensuite", "hier", "j'avais", "j'étais", "récemment", "étais", "était", "étions",
        ],
        Language::Es => &[
            "ayer", "decidimos", "decidí", "dijo", "empecé", "empezó", "estaba", "estábamos", "fue", "fueron", "fui",
            "fuimos", "hice", "hizo", "intenté", "ocurrió", "pasó", "probé", "recientemente", "tuve", "tuvimos",
            "tuvo",
        ],
        Language::It => &[
            "aveva", "avevamo", "avevo", "c'era", "dopodiché", "eravamo", "ero", "ieri", "poi", "recentemente",
        ],
        _ => &[],
    }
}

pub fn narrating_phrases(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "at one point", "ended up", "last month", "last time", "last week", "last year", "one day", "one time",
            "the other day", "this morning",
        ],
        Language::De => &["eines tages", "letzte woche", "letzten monat", "letztes jahr", "vor kurzem"],
        Language::Fr => &[
            "l'année dernière", "l'autre jour", "la semaine dernière", "le mois dernier", "un jour", "une fois",
        ],
        Language::Es => &["el año pasado", "el mes pasado", "el otro día", "la semana pasada", "un día", "una vez"],
        Language::It => &[
            "il mese scorso", "l'altro giorno", "l'anno scorso", "la settimana scorsa", "un giorno", "una volta",
        ],
        _ => &[],
    }
}

pub fn comparing_words(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "alternatively", "anymore", "better", "compare", "compared", "comparing", "comparison", "contrast",
            "difference", "different", "differently", "differs", "nowadays", "prefer", "preferred", "previously",
            "similar", "similarly", "than", "unlike", "versus", "vs", "whereas", "worse",
        ],
        Language::De => &[
            "anders", "anstatt", "besser", "früher", "gegenüber", "lieber", "schlechter", "statt", "stattdessen",
            "unterschied", "unterschiedlich", "vergleich", "verglichen", "wohingegen", "ähnlich",
        ],
        Language::Fr => &[
            "autrefois", "comparaison", "comparé", "contrairement", "différemment", "différence", "différent",
            "différente", "meilleur", "meilleure", "mieux", "pire", "préfère", "préférable", "semblable",
            "similaire",
        ],
        Language::Es => &[
            "comparación", "comparado", "diferencia", "diferente", "distinto", "mejor", "parecido", "peor",
            "preferible", "prefiero", "similar",
        ],
        Language::It => &[
            "anziché", "confronto", "differente", "differenza", "diversa", "diverso", "meglio", "migliore",
            "paragonato", "paragone", "peggio", "peggiore", "preferisco", "rispetto", "simile",
        ],
        _ => &[],
    }
}

pub fn comparing_phrases(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &["as opposed to", "instead of", "on the other hand", "rather than", "used to"],
        Language::De => &["im gegensatz", "mehr als", "weniger als"],
        Language::Fr => &["alors que", "au lieu", "moins que", "par rapport", "plus que", "plutôt que", "tandis que"],
        Language::Es => &["en cambio", "en lugar", "en vez", "menos que", "mientras que", "más que"],
        Language::It => &["invece di", "meno che", "mentre invece", "piuttosto che", "più che"],
        _ => &[],
    }
}

pub fn worrying_words(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "afraid", "anxiety", "anxious", "concern", "concerned", "concerning", "concerns", "dangerous", "fear",
            "fears", "frightening", "harmful", "nervous", "risk", "risks", "risky", "scared", "scary", "threat",
            "threatened", "threatening", "worried", "worries", "worry", "worrying",
        ],
        Language::De => &[
            "angst", "bedrohung", "befürchte", "besorgt", "fürchte", "gefahr", "gefährlich", "gefährliche", "risiko",
            "sorge", "sorgen",
        ],
        Language::Fr => &[
            "crains", "crainte", "dangereuse", "dangereuses", "dangereux", "inquiet", "inquiète", "inquiétant",
            "inquiétante", "inquiétants", "menace", "peur", "risque", "risques",
        ],
        Language::Es => &[
            "amenaza", "miedo", "peligrosa", "peligroso", "peligrosos", "preocupa", "preocupada", "preocupado",
            "riesgo", "temo",
        ],
        Language::It => &[
            "minaccia", "paura", "pericolosa", "pericolosi", "pericoloso", "preoccupa", "preoccupata", "preoccupato",
            "rischio", "temo",
        ],
        _ => &[],
    }
}

pub fn worrying_phrases(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &["what if"],
        Language::De => &["was wenn"],
        Language::Fr => &["et si"],
        Language::Es => &["y si"],
        Language::It => &["e se"],
        _ => &[],
    }
}

pub fn wishing_words(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &["hope", "hopefully", "hoping", "ideally", "wish", "wishes"],
        Language::De => &["hoffe", "hoffentlich", "idealerweise", "wunsch", "wünsche", "wünschen"],
        Language::Fr => &[
            "aimerais", "espère", "idéalement", "j'aimerais", "j'espère", "souhaite", "souhaiterais", "voudrais",
        ],
        Language::Es => &["deseo", "espero", "gustaría", "idealmente", "ojalá", "quisiera"],
        Language::It => &["desidero", "idealmente", "magari", "piacerebbe", "speriamo", "spero", "vorrei", "vorremmo"],
        _ => &[],
    }
}

pub fn wishing_phrases(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &["i want", "i'd like", "i'd love", "if only", "would be nice", "would like", "would love"],
        Language::De => &["hätte gern", "hätte gerne", "wäre schön", "würde mir"],
        Language::Fr => &["ce serait bien", "si seulement"],
        Language::Es => &["me encantaría", "sería bueno"],
        Language::It => &["mi piacerebbe", "sarebbe bello"],
        _ => &[],
    }
}

/// What tells that an answer already gives a concrete example: a marker of an
/// example, or of one particular time (normalized phrases of one to four words).
pub fn example_markers(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "a few days ago", "at one point", "e g", "for example", "for instance", "in one case", "last month",
            "last week", "last year", "like when", "one day", "one example", "one time", "recently", "such as",
            "the other day", "there was a time", "yesterday",
        ],
        Language::De => &[
            "beispielsweise", "eines tages", "gestern", "kürzlich", "letzte woche", "letzten monat", "letztes jahr",
            "neulich", "vor kurzem", "z b", "zb", "zum beispiel",
        ],
        Language::Fr => &[
            "hier", "l'année dernière", "l'autre jour", "la semaine dernière", "le mois dernier", "par exemple",
            "récemment", "un jour", "une fois",
        ],
        Language::Es => &[
            "ayer", "el año pasado", "el mes pasado", "el otro día", "la semana pasada", "por ejemplo",
            "recientemente", "un día", "una vez",
        ],
        Language::It => &[
            "ad esempio", "ieri", "l'altro giorno", "l'anno scorso", "la settimana scorsa", "per esempio",
            "recentemente", "un giorno", "una volta",
        ],
        Language::Ru => &["вчера", "например", "недавно", "однажды"],
        Language::Uk => &["вчора", "наприклад", "нещодавно", "одного разу"],
        Language::El => &["για παραδειγμα", "μια φορα", "π χ", "προσφατα", "χθεσ"],
        Language::He => &["אתמול", "לאחרונה", "לדוגמה", "למשל", "פעם אחת"],
        Language::Ar => &["أمس", "ذات مرة", "على سبيل المثال", "مؤخرا", "مثلا"],
        // Matched as written: Japanese has no spaces.
        Language::Ja => &["ある日", "たとえば", "一度", "例えば", "先日", "先月", "先週", "去年", "昨日", "最近"],
    }
}

/// What sets two things of an answer against each other, so that a probe may
/// ask about the two as a contrast ("editing *rather than* drafting", "*unlike*
/// image tools, the music plugins …"): normalized phrases of one to four words.
pub fn contrast_markers(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            // Not "vs" nor "versus": they join a compound as often as they contrast ("batter vs. hitter matchups").
            "as opposed to", "compared to", "compared with", "in contrast to", "instead of", "rather than", "unlike",
            "whereas",
        ],
        Language::De => &[
            "anstatt", "im gegensatz zu", "im gegensatz zum", "im vergleich zu", "im vergleich zum", "statt",
            "verglichen mit", "wohingegen",
        ],
        Language::Fr => &[
            "au lieu de", "au lieu du", "comparé à", "contrairement à", "contrairement au", "par rapport à",
            "par rapport au", "plutôt que", "tandis que",
        ],
        Language::Es => &[
            "a diferencia de", "a diferencia del", "comparado con", "en comparación con", "en lugar de", "en lugar del",
            "en vez de", "en vez del", "mientras que",
        ],
        Language::It => &[
            "a differenza di", "a differenza del", "anziché", "invece di", "invece del", "piuttosto che",
            "rispetto a", "rispetto al",
        ],
        _ => &[],
    }
}

/// The words after which a past tense or participle tells a story, and how
/// many words on it may follow: an English subject ("we tried"), the German,
/// French, Spanish and Italian auxiliaries of the past ("habe … gekauft",
/// "j'ai essayé", "hemos probado", "ho provato").
pub fn past_auxiliaries(language: Language) -> (&'static [&'static str], usize) {
    match language {
        Language::En => (&["he", "i", "she", "they", "we", "you"], 2),
        Language::De => (&[
            "bin", "habe", "haben", "hast", "hat", "hatte", "hatten", "ist", "sind", "war", "waren", "wurde",
            "wurden",
        ], 8),
        Language::Fr => (&["a", "ai", "as", "avez", "avons", "j'ai", "ont"], 2),
        Language::Es => (&["ha", "había", "habíamos", "habían", "han", "has", "he", "hemos"], 2),
        Language::It => (&["abbiamo", "avete", "ha", "hai", "hanno", "ho", "siamo", "sono", "è"], 2),
        _ => (&[], 0),
    }
}

/// English pasts that do not end in -ed.
pub fn irregular_pasts() -> &'static [&'static str] {
    &[
        "became", "began", "bought", "brought", "built", "came", "chose", "did", "drove", "felt", "found", "gave",
        "got", "had", "heard", "held", "kept", "knew", "left", "lost", "made", "meant", "met", "paid", "ran", "read",
        "said", "sat", "saw", "sent", "spent", "spoke", "stood", "taught", "thought", "told", "took", "understood",
        "was", "went", "were", "won", "wrote",
    ]
}

/// The German separable prefixes a participle's ge- may follow ("ausgetauscht",
/// "eingebaut"), and none.
pub const GERMAN_PREFIXES: [&str; 17] =
    ["", "ab", "an", "auf", "aus", "bei", "ein", "fest", "her", "hin", "los", "mit", "nach", "um", "vor", "weg", "zu"];

/// The forms of German "haben" among the auxiliaries of the past.
pub const GERMAN_HABEN: [&str; 6] = ["habe", "haben", "hast", "hat", "hatte", "hatten"];

/// What a comparison is built of beyond its words: the words of degree before
/// a comparative ("much", "viel"; Romance "plus", "más", "più") and what
/// follows it ("als"; "que", "di", "che").
pub fn comparison_frames(language: Language) -> Option<(&'static [&'static str], &'static [&'static str])> {
    match language {
        Language::En => Some((&["bit", "even", "far", "lot", "much", "slightly", "way"], &[])),
        Language::De => Some((&["etwas", "noch", "viel", "weit"], &["als"])),
        Language::Fr => Some((&["aussi", "moins", "plus"], &["que"])),
        Language::Es => Some((&["menos", "más", "tan"], &["como", "que"])),
        Language::It => Some((&["meno", "più"], &["che", "dei", "del", "della", "delle", "dello", "di"])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use text::words::normalize;
    use text_enum::TextEnum;

    #[test]
    fn the_cue_lists_are_normalized_and_the_word_lists_sorted() {
        let sorted = |name: &str, list: &[&str]| {
            assert!(list.iter().all(|w| normalize(w) == *w), "{name}");
            assert!(list.windows(2).all(|pair| pair[0] < pair[1]), "{name} is not sorted");
        };
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            for list in [generalising_words, judging_words, narrating_words, comparing_words, worrying_words, wishing_words] {
                sorted(name, list(language));
            }
            for list in [generalising_phrases, judging_phrases, narrating_phrases, comparing_phrases, worrying_phrases, wishing_phrases] {
                assert!(list(language).iter().all(|p| normalize(p) == *p && p.contains(' ')), "{name}");
            }
            sorted(&format!("{name} past auxiliaries"), past_auxiliaries(language).0);
            if let Some((intensifiers, comparison)) = comparison_frames(language) {
                sorted(name, intensifiers);
                sorted(name, comparison);
            }
            assert!(example_markers(language).iter().all(|m| normalize(m) == *m), "{name}");
            assert!(contrast_markers(language).iter().all(|m| normalize(m) == *m), "{name}");
        }
        sorted("irregular pasts", irregular_pasts());
    }
}
