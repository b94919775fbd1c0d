//! The words a quote must treat with care, per interview language: negations
//! and modals (a quote carries the ones that belong to its phrase, or another
//! phrase is chosen), adverbs of degree and connectives (never at a quote's
//! edge), and the connectives that end a clause, and with it the reach of a
//! negation (docs/sessions.md, "Quotes").
//!
//! Every list is written normalized (`words::normalize`) and sorted, so a word
//! is looked up by binary search: a test holds them to it.

use crate::Language;

/// Where a negation or modal reaches in its clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Over what follows it to the clause's end: "can't *find a good image*".
    Following,
    /// Over the whole clause, before it too: German puts `nicht` after the verb
    /// ("ich finde das Bild *nicht*"), spoken French drops `ne` ("j'ai *pas* le temps").
    Clause,
}

/// How many words right before a phrase are read for a negation or modal,
/// even across a connective.
pub const NEAR_WORDS: usize = 3;

pub fn reach(language: Language) -> Reach {
    match language {
        Language::De | Language::Fr => Reach::Clause,
        _ => Reach::Following,
    }
}

/// Words that negate what they reach: "not", "never", "hardly", "without",
/// "no (longer)", the words that say "not able" or "not there" ("unable",
/// "impossible", "lack", "fehlt", "manque"), and English "least", which turns
/// what follows into its opposite ("my *least* favourite part"). English contractions in `n't` and French `n'` are negations
/// whatever the verb (see `Lexicon::qualifier`).
pub fn negations(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "ain't", "aint", "aren't", "arent", "barely", "can't", "cannot", "cant", "couldnt", "didnt", "doesnt",
            "dont", "fail", "failed", "failing", "fails", "hadnt", "hardly", "hasnt", "havent", "impossible",
            "incapable", "isnt", "lack", "lacked", "lacking", "lacks", "least", "neither", "never", "no", "nobody", "none",
            "noone", "nor", "not", "nothing", "nowhere", "rarely", "scarcely", "seldom", "shouldnt", "unable",
            "wasnt", "werent", "without", "wont", "wouldnt",
        ],
        Language::De => &[
            "fehlen", "fehlt", "fehlte", "fehlten", "kaum", "kein", "keine", "keinem", "keinen", "keiner",
            "keinerlei", "keines", "mangelt", "nein", "nicht", "nichts", "nie", "niemals", "niemand", "nirgends",
            "nirgendwo", "ohne", "unfähig", "unmöglich", "weder",
        ],
        Language::Fr => &[
            "aucun", "aucune", "aucunement", "guère", "impossible", "incapable", "incapables", "jamais", "manque",
            "manquent", "ne", "ni", "non", "nul", "nulle", "nullement", "pas", "rien", "sans",
        ],
        Language::Es => &[
            "apenas", "falta", "faltan", "imposible", "incapaz", "jamás", "nada", "nadie", "ni", "ninguna",
            "ningunas", "ninguno", "ningunos", "ningún", "no", "nunca", "sin", "tampoco",
        ],
        Language::It => &[
            "impossibile", "incapace", "mai", "manca", "mancano", "mica", "neanche", "nemmeno", "neppure", "nessun",
            "nessuna", "nessuno", "niente", "no", "non", "nulla", "né", "senza",
        ],
        Language::Ru => &[
            "без", "не", "нельзя", "нет", "ни", "нигде", "никак", "никогда", "никого", "никто", "ничего", "ничто",
        ],
        Language::Uk => &[
            "без", "не", "нема", "немає", "ні", "ніде", "нікого", "ніколи", "ніхто", "нічого", "ніщо", "ніяк",
        ],
        Language::El => &[
            "δεν", "καμια", "κανεισ", "κανενα", "κανενασ", "μη", "μην", "ουτε", "οχι", "ποτε", "τιποτα", "χωρισ",
        ],
        Language::He => &[
            "אין", "אינה", "אינו", "איני", "אינם", "אינן", "אל", "אף", "בלי", "ואין", "ובלי", "ולא", "לא", "מעולם",
            "שאין", "שלא",
        ],
        Language::Ar => &[
            "أبدا", "ابدا", "بدون", "دون", "غير", "لا", "لست", "لسنا", "لم", "لن", "ليس", "ليست", "ليسوا", "ولا",
            "ولم", "ولن", "وليس",
        ],
        // Japanese negates with an ending after the verb (ない, ません): see `Lexicon::negated_after`.
        Language::Ja => &[],
    }
}

/// Negations that reach only the words right after them, even where others
/// reach the whole clause: "ohne Umweltstandards", "keine Lösung", "sans
/// contrôle", "aucun intérêt".
pub fn local_negations(language: Language) -> &'static [&'static str] {
    match language {
        Language::De => &[
            "fehlen", "fehlt", "fehlte", "fehlten", "kein", "keine", "keinem", "keinen", "keiner", "keinerlei",
            "keines", "mangelt", "nein", "ohne", "unfähig", "unmöglich",
        ],
        Language::Fr => &[
            "aucun", "aucune", "impossible", "incapable", "incapables", "manque", "manquent", "non", "nul", "nulle",
            "sans",
        ],
        _ => &[],
    }
}

/// Modal verbs: "should build more parks" is not "build more parks".
pub fn modals(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "can", "could", "gonna", "gotta", "he'd", "he'll", "i'd", "i'll", "it'd", "it'll", "may", "might",
            "must", "ought", "shall", "she'd", "she'll", "should", "that'd", "that'll", "there'll", "they'd",
            "they'll", "we'd", "we'll", "will", "would", "you'd", "you'll",
        ],
        Language::De => &[
            "darf", "darfst", "dürfen", "dürfte", "dürften", "kann", "kannst", "konnte", "konnten", "können",
            "könnt", "könnte", "könnten", "muss", "musst", "musste", "mussten", "möchte", "möchten", "müssen",
            "müsste", "müssten", "soll", "sollen", "sollst", "sollt", "sollte", "sollten", "will", "willst",
            "wollen", "wollt", "wollte", "wollten", "würde", "würden",
        ],
        Language::Fr => &[
            "devez", "devons", "devra", "devrai", "devraient", "devrais", "devrait", "devrez", "devriez", "devrions",
            "devrons", "devront", "dois", "doit", "doivent", "fallait", "faudra", "faudrait", "faut", "peut",
            "peuvent", "peux", "pourra", "pourrai", "pourraient", "pourrais", "pourrait", "pourrez", "pourriez",
            "pourrions", "pourrons", "pourront", "pouvez", "pouvons", "puisse", "puissent", "voudrais", "voudrait",
            "voudrions",
        ],
        Language::Es => &[
            "deba", "debamos", "deban", "debe", "debemos", "deben", "deberá", "deberán", "debería", "deberíamos",
            "deberían", "deberías", "debes", "debo", "podamos", "podemos", "podrá", "podrán", "podría", "podríamos",
            "podrían", "podrías", "pudiera", "pudieran", "pueda", "puedan", "puede", "pueden", "puedes", "puedo",
            "quisiera", "quisiéramos",
        ],
        Language::It => &[
            "bisogna", "deve", "devi", "devo", "devono", "dobbiamo", "dovete", "dovranno", "dovrebbe", "dovrebbero",
            "dovrei", "dovremmo", "dovreste", "dovresti", "dovrà", "occorre", "possiamo", "posso", "possono",
            "potete", "potranno", "potrebbe", "potrebbero", "potrei", "potremmo", "potreste", "potresti", "potrà",
            "puoi", "può", "vorrebbe", "vorrebbero", "vorrei", "vorremmo",
        ],
        Language::Ar | Language::Ru | Language::Ja | Language::He | Language::El | Language::Uk => &[],
    }
}

/// Two-word modals, written as their two normalized words: "have to", "hay que".
pub fn modal_pairs(language: Language) -> &'static [(&'static str, &'static str)] {
    match language {
        Language::En => &[("going", "to"), ("had", "to"), ("has", "to"), ("have", "to")],
        Language::Es => &[
            ("hay", "que"), ("tenemos", "que"), ("tener", "que"), ("tengo", "que"), ("tiene", "que"), ("tienen", "que"),
        ],
        _ => &[],
    }
}

/// Two words that look like a negation and its word but are not one: "sin
/// embargo" (however), "no obstante" (nevertheless), "non solo" (not only:
/// nothing is denied).
pub fn not_negating(language: Language) -> &'static [(&'static str, &'static str)] {
    match language {
        Language::Es => &[("no", "obstante"), ("no", "solo"), ("no", "sólo"), ("sin", "embargo")],
        Language::It => &[("non", "solo")],
        Language::Fr => &[("non", "seulement")],
        Language::De => &[("nicht", "nur")],
        Language::En => &[("not", "only")],
        _ => &[],
    }
}

/// Words that only look like a negation after the word before them:
/// "whether *or not*", "*at least*", "ou *non*", "oder *nicht*".
pub fn not_negating_after(language: Language) -> &'static [(&'static str, &'static str)] {
    match language {
        Language::En => &[("or", "not"), ("at", "least")],
        Language::Fr => &[("ou", "non"), ("ou", "pas")],
        Language::De => &[("oder", "nicht")],
        Language::Es => &[("o", "no")],
        Language::It => &[("o", "no"), ("o", "non")],
        _ => &[],
    }
}

/// Prepositions the stop-word lists leave out: like them, they never stand at
/// a quote's edge ("*entre* grandes puissances").
pub fn prepositions(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "along", "among", "amongst", "behind", "beside", "beyond", "concerning", "despite", "except",
            "including", "near", "onto", "regarding", "throughout", "till", "toward", "towards", "unlike", "unto", "upon",
            "versus", "vs", "whilst", "within",
        ],
        Language::Fr => &[
            "chez", "contre", "depuis", "durant", "dès", "entre", "envers", "hors", "jusqu", "malgré", "outre",
            "parmi", "pendant", "selon", "sous", "vers", "via",
        ],
        Language::Es => &["bajo", "excepto", "hacia", "mediante", "salvo", "según", "tras"],
        Language::De => &[
            "ab", "außerhalb", "entlang", "gegenüber", "innerhalb", "je", "laut", "neben", "per", "pro", "samt",
            "seit", "statt", "trotz", "wegen",
        ],
        Language::It => &[
            "circa", "dopo", "durante", "entro", "fra", "lungo", "mediante", "oltre", "presso", "sopra", "sotto",
            "tramite", "verso",
        ],
        _ => &[],
    }
}

/// Adverbs of degree: they qualify a word and say nothing of their own, so a
/// quote never begins or ends on one ("perspective *somewhat*").
pub fn degree_adverbs(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "absolutely", "almost", "awfully", "completely", "considerably", "deeply", "enough", "entirely",
            "exceedingly", "extremely", "fairly", "fully", "greatly", "highly", "hugely", "immensely",
            "increasingly", "incredibly", "insanely", "kinda", "largely", "least", "less", "literally", "marginally",
            "massively", "merely", "moderately", "more", "most", "mostly", "much", "nearly", "partially",
            "particularly", "partly", "practically", "pretty", "quite", "rather", "really", "reasonably",
            "relatively", "remarkably", "significantly", "simply", "slightly", "so", "somewhat", "sorta", "strongly",
            "substantially", "super", "terribly", "thoroughly", "too", "totally", "tremendously", "truly", "utterly",
            "very", "virtually", "wholly",
        ],
        Language::De => &[
            "absolut", "beinahe", "besonders", "bisschen", "durchaus", "eher", "einigermaßen", "enorm", "etwas",
            "extrem", "fast", "ganz", "gar", "genug", "größtenteils", "höchst", "massiv", "mehr", "meisten",
            "nahezu", "recht", "relativ", "schlicht", "sehr", "stark", "super", "teilweise", "total", "unbedingt", "ungemein",
            "unglaublich", "vergleichsweise", "vermehrt", "verstärkt", "viel", "vollkommen", "völlig", "weitgehend",
            "wenig", "weniger", "wirklich", "ziemlich", "zu", "zutiefst", "äußerst", "überaus",
        ],
        Language::Fr => &[
            "absolument", "assez", "autant", "beaucoup", "carrément", "complètement", "davantage", "entièrement",
            "environ", "extrêmement", "fortement", "franchement", "hyper", "largement", "légèrement", "moins",
            "parfaitement", "particulièrement", "peu", "pleinement", "plus", "plutôt", "presque", "profondément",
            "quasi", "quasiment", "relativement", "suffisamment", "super", "tant", "tellement", "totalement", "trop",
            "très", "vachement", "vraiment", "énormément",
        ],
        Language::Es => &[
            "absolutamente", "algo", "altamente", "bastante", "casi", "completamente", "demasiado", "enormemente",
            "especialmente", "excesivamente", "extremadamente", "increíblemente", "ligeramente", "menos", "mucho",
            "muy", "más", "particularmente", "poco", "profundamente", "realmente", "relativamente",
            "suficientemente", "sumamente", "super", "súper", "tan", "tanto", "totalmente", "verdaderamente",
        ],
        Language::It => &[
            "abbastanza", "affatto", "alquanto", "altamente", "assai", "assolutamente", "completamente", "davvero",
            "decisamente", "estremamente", "leggermente", "meno", "molto", "parecchio", "particolarmente",
            "parzialmente", "piuttosto", "più", "poco", "pressoché", "profondamente", "quasi", "relativamente",
            "sufficientemente", "super", "talmente", "tanto", "totalmente", "troppo", "veramente",
        ],
        Language::Ru => &[
            "абсолютно", "вполне", "довольно", "крайне", "почти", "слишком", "совершенно", "совсем", "чуть",
        ],
        Language::Uk => &["абсолютно", "доволі", "досить", "занадто", "зовсім", "майже", "надто", "трохи", "цілком"],
        Language::El => &["αρκετα", "εντελωσ", "λιγακι", "πανω", "περισσοτερο", "σχεδον", "τελειωσ", "υπερβολικα"],
        Language::He => &["ביותר", "יותר", "כמעט", "לגמרי", "מדי", "ממש", "פחות"],
        Language::Ar => &["أقل", "أكثر", "تقريبا", "تماما", "جدا", "قليلا", "كثيرا", "للغاية"],
        Language::Ja => &["一番", "全然", "多少", "大変", "少", "最", "結構", "非常"],
    }
}

/// Set phrases that work as one adverb or connective ("in erster Linie", "par
/// exemple", "of course"): their words say nothing of their own there, so a
/// phrase never begins, ends or runs through them ("*erster Linie* sollen die
/// Unternehmen" is no phrase). Normalized words, space-separated.
pub fn adverbial_phrases(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "as a matter of fact", "at the end of the day", "by the way", "first of all", "for example", "for instance",
            "in fact", "in general", "in order to", "in other words", "in particular", "in the first place", "of course",
            "on the other hand",
        ],
        Language::De => &[
            "auf jeden fall", "im grunde", "im moment", "im prinzip", "in erster linie", "unter anderem", "vor allem",
            "zum beispiel", "zum teil",
        ],
        Language::Fr => &[
            "au fond", "avant tout", "bien sûr", "d'autre part", "d'une part", "de nos jours", "en effet", "en fait",
            "en l'état actuel des choses", "en premier lieu", "par exemple", "tout d'abord", "à l'heure actuelle", "à mon avis",
        ],
        Language::Es => &[
            "ante todo", "de hecho", "de todas formas", "en primer lugar", "en realidad", "por ejemplo",
            "por supuesto", "sobre todo",
        ],
        Language::It => &["ad esempio", "di fatto", "di sicuro", "in primo luogo", "in realtà", "per esempio", "prima di tutto"],
        _ => &[],
    }
}

/// Connectives: they join clauses and say nothing of their own, so a quote
/// never begins or ends on one ("*therefore* a better output").
pub fn connectives(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "accordingly", "additionally", "also", "alternatively", "although", "and", "anyhow", "anyway", "as",
            "because", "besides", "but", "cause", "consequently", "conversely", "cuz", "eg", "either", "essentially",
            "etc", "finally", "firstly", "furthermore", "hence", "however", "ie", "if", "indeed", "instead",
            "lastly", "likewise", "meanwhile", "moreover", "namely", "nevertheless", "nonetheless", "nor", "or",
            "otherwise", "overall", "plus", "regardless", "secondly", "similarly", "since", "so", "specifically",
            "still", "subsequently", "then", "thereby", "therefore", "thirdly", "though", "thus", "ultimately",
            "unless", "until", "when", "whenever", "whereas", "whereby", "whether", "while", "yet",
        ],
        Language::De => &[
            "aber", "allerdings", "also", "andererseits", "außerdem", "bevor", "beziehungsweise", "bzw", "dabei",
            "dadurch", "daher", "damit", "dann", "darum", "dass", "denn", "dennoch", "deshalb", "deswegen", "doch",
            "ebenfalls", "ebenso", "einerseits", "falls", "folglich", "insbesondere", "jedoch", "nachdem", "nämlich",
            "ob", "obwohl", "oder", "schließlich", "sodass", "sofern", "solange", "sondern", "sowie", "sowohl",
            "stattdessen", "trotzdem", "und", "usw", "vorallem", "weil", "wenn", "weshalb", "wobei", "während",
            "zudem", "zumal", "zwar",
        ],
        Language::Fr => &[
            "abord", "afin", "ainsi", "alors", "aussi", "bref", "car", "cependant", "certes", "comme", "d'ailleurs",
            "donc", "enfin", "ensuite", "et", "etc", "lorsque", "mais", "notamment", "néanmoins", "or", "ou",
            "parce", "pourtant", "puis", "puisque", "quand", "quoique", "sinon", "soit", "tandis", "toutefois",
            "voire", "également",
        ],
        Language::Es => &[
            "además", "asimismo", "así", "aunque", "cuando", "e", "embargo", "encima", "entonces", "etc",
            "finalmente", "igualmente", "incluso", "luego", "mientras", "o", "obstante", "pero", "porque", "pues",
            "sino", "siquiera", "también", "u", "y",
        ],
        Language::It => &[
            "affinché", "allora", "altrimenti", "anche", "anzi", "benché", "cioè", "comunque", "dunque", "e", "ecc",
            "ed", "eppure", "finché", "infatti", "infine", "inoltre", "invece", "ma", "mentre", "nonostante", "o",
            "oppure", "ossia", "ovvero", "perché", "perciò", "pertanto", "però", "poi", "poiché", "purché", "pure",
            "quando", "quindi", "se", "sebbene", "siccome", "soprattutto", "tuttavia",
        ],
        Language::Ru => &["а", "зато", "и", "или", "но", "однако", "потому", "поэтому", "также", "тоже", "хотя"],
        Language::Uk => &["а", "або", "але", "зате", "й", "однак", "проте", "також", "тому", "хоча", "і"],
        Language::El => &["ακομα", "αλλα", "γιατι", "ενω", "επειδη", "επισησ", "η", "και", "ομωσ", "οποτε"],
        Language::He => &["אבל", "או", "אולם", "אך", "בנוסף", "גם", "כי", "לכן", "למרות"],
        Language::Ar => &["أو", "أيضا", "بل", "ثم", "لأن", "لذلك", "لكن", "و"],
        Language::Ja => &["但", "又"],
    }
}

/// The connectives that begin a new clause, and so end the reach of a negation
/// or modal before them ("I *don't* use it for writing, *but* the research
/// part is great"). "and", "or", "if", "that" are not among them: "no time
/// or energy", "not sure if it helps", "don't think that it works".
pub fn clause_breaks(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "although", "because", "but", "cause", "cuz", "however", "nevertheless", "nonetheless", "since", "so",
            "then", "therefore", "though", "thus", "unless", "until", "when", "whenever", "whereas", "while", "yet",
        ],
        Language::De => &[
            "aber", "allerdings", "denn", "dennoch", "deshalb", "deswegen", "doch", "jedoch", "obwohl", "sondern",
            "trotzdem", "weil", "wenn", "während",
        ],
        Language::Fr => &[
            "car", "cependant", "donc", "lorsque", "mais", "néanmoins", "parce", "pourtant", "puisque", "quand",
            "sinon", "tandis", "toutefois",
        ],
        Language::Es => &["aunque", "cuando", "embargo", "mientras", "obstante", "pero", "porque", "sino"],
        Language::It => &[
            "anzi", "benché", "comunque", "eppure", "invece", "ma", "mentre", "perché", "perciò", "però", "poiché",
            "quando", "quindi", "sebbene", "siccome", "tuttavia",
        ],
        Language::Ru => &["а", "зато", "но", "однако", "потому", "поэтому", "хотя"],
        Language::Uk => &["а", "але", "зате", "однак", "проте", "тому", "хоча"],
        Language::El => &["αλλα", "γιατι", "ενω", "επειδη", "ομωσ", "οποτε"],
        Language::He => &["אבל", "אולם", "אך", "כי", "לכן", "למרות"],
        Language::Ar => &["بل", "لأن", "لذلك", "لكن"],
        Language::Ja => &[],
    }
}

/// Personal pronouns that, after "and" or "or", begin a clause of their own:
/// "I can't draw *and I* use it for sketches".
pub fn subject_pronouns(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &["he", "i", "it", "she", "they", "we", "you"],
        Language::De => &["er", "es", "ich", "ihr", "man", "sie", "wir"],
        Language::Fr => &["elle", "elles", "il", "ils", "je", "nous", "on", "vous"],
        Language::Es => &["ella", "ellas", "ellos", "nosotros", "usted", "ustedes", "yo", "él"],
        Language::It => &["io", "lei", "loro", "lui", "noi", "voi"],
        _ => &[],
    }
}

/// Words that open a clause inside a sentence: wh-words, relatives and
/// subjects ("AI in *what* people think", "music *it's* a big problem"). A
/// phrase that takes one in stops halfway through that clause. English only:
/// the labels of the built-in synthesis are English phrases.
pub fn clause_openers(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "he", "he's", "how", "i", "i'd", "i'll", "i'm", "i've", "if", "it", "it'd", "it'll", "it's", "she",
            "she's", "that", "that's", "there's", "they", "they'd", "they'll", "they're", "they've", "we", "we'd",
            "we'll", "we're", "we've", "what", "where", "whether", "which", "who", "whom", "whose", "why", "you",
            "you'd", "you'll", "you're", "you've",
        ],
        _ => &[],
    }
}

/// The word that ties a noun to what it is of ("the accuracy *of* the
/// model", "for the sake *of* branches"), and the words whose complement
/// "to" ties to them ("compared *to* colleagues", "due *to* cost", "supposed
/// *to* look"): a phrase that stops right before the tie leaves its head
/// without what completes it. In German, French, Spanish and Italian the tie
/// is "von" and the forms of "of" that hold an article ("du", "del", "della":
/// "el Fin *del* Embargo"); a plain "de" or "di" often opens an infinitive
/// instead ("le temps *de* tout vérifier"), and is no tie.
pub fn complement_ties(language: Language) -> (&'static [&'static str], &'static [&'static str]) {
    match language {
        Language::En => (&["of"], &["according", "compared", "contrary", "due", "prior", "related", "relative", "similar", "supposed", "thanks"]),
        Language::De => (&["von"], &[]),
        Language::Fr => (&["des", "du"], &[]),
        Language::Es => (&["del"], &[]),
        Language::It => (&["degli", "dei", "del", "della", "delle", "dello"], &[]),
        _ => (&[], &[]),
    }
}

/// The words that open a verb's object: articles, possessives and object
/// pronouns. A label that stops right before one stops before its verb's
/// object ("AI to help create" of "create *the* ...", "AI is very useful for
/// helping" of "helping *me* write the tools"). English only, like
/// [`clause_openers`]: quotes do without it, where it cut "should publish
/// each month *the* ..." short.
pub fn object_openers(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &["a", "an", "her", "him", "his", "its", "me", "my", "our", "the", "their", "them", "us", "your"],
        _ => &[],
    }
}

/// The words "and" and "or" (see [`subject_pronouns`]).
pub fn coordinators(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &["and", "or"],
        Language::De => &["oder", "und"],
        Language::Fr => &["et", "ou"],
        Language::Es => &["e", "o", "u", "y"],
        Language::It => &["e", "ed", "o", "oppure"],
        Language::Ru => &["и", "или"],
        Language::Uk => &["або", "й", "і"],
        Language::El => &["η", "και"],
        Language::He => &["או"],
        Language::Ar => &["أو", "و"],
        Language::Ja => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::normalize;
    use text_enum::TextEnum;

    /// Every list is looked up by binary search: it must be normalized and sorted.
    pub fn assert_sorted_and_normalized(name: &str, list: &[&str]) {
        for word in list {
            assert_eq!(normalize(word), *word, "{name}: {word}");
        }
        assert!(list.windows(2).all(|pair| pair[0] < pair[1]), "{name} is not sorted: {list:?}");
    }

    #[test]
    fn the_lists_are_normalized_and_sorted() {
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            let lists = [
                ("negations", negations(language)),
                ("local negations", local_negations(language)),
                ("modals", modals(language)),
                ("prepositions", prepositions(language)),
                ("degree adverbs", degree_adverbs(language)),
                ("connectives", connectives(language)),
                ("clause breaks", clause_breaks(language)),
                ("subject pronouns", subject_pronouns(language)),
                ("coordinators", coordinators(language)),
                ("clause openers", clause_openers(language)),
                ("complement ties", complement_ties(language).0),
                ("heads tied by to", complement_ties(language).1),
                ("object openers", object_openers(language)),
            ];
            for (list, words) in lists {
                assert_sorted_and_normalized(&format!("{name} {list}"), words);
            }
            assert!(adverbial_phrases(language).iter().all(|p| normalize(p) == *p && p.contains(' ')), "{name}");
            // A connective that opens a clause is a connective; a local negation a negation.
            assert!(clause_breaks(language).iter().all(|w| connectives(language).contains(w)), "{name}");
            assert!(local_negations(language).iter().all(|w| negations(language).contains(w)), "{name}");
        }
        assert!(matches!(reach(Language::De), Reach::Clause) && matches!(reach(Language::En), Reach::Following));
    }
}
