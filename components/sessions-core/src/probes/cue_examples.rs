//! Labelled cue examples per language (`cue_examples.json`): what each answer
//! does, as a reader labels it. English, German, French and Spanish examples are
//! written in the manner of the real answers of `tests/fixtures/real-answers`
//! (not taken from them: those check the rules held out); Italian, which has no
//! real answers there, by hand.

use super::*;
use std::collections::BTreeMap;

/// The examples: per language, the answers of each cue's name (`"none"`: of no cue).
fn labelled_examples() -> Vec<(Language, Vec<(Option<Cue>, String)>)> {
    let file: BTreeMap<String, BTreeMap<String, Vec<String>>> =
        serde_json::from_str(include_str!("cue_examples.json")).expect("cue_examples.json: languages of cues of answers");
    let cue_named = |name: &str| match name {
        "none" => None,
        name => Some(Cue::ALL.into_iter().find(|cue| format!("{cue:?}").to_lowercase() == name).unwrap_or_else(|| panic!("no cue {name:?}"))),
    };
    file.into_iter()
        .map(|(code, cues)| {
            let language = Language::parse(&code).unwrap_or_else(|| panic!("no language {code:?}"));
            (language, cues.into_iter().flat_map(|(name, answers)| answers.into_iter().map(move |answer| (cue_named(&name), answer))).collect())
        })
        .collect()
}

/// The way a probe asks first about each example: the one its cue calls for,
/// or the rotation's first when it gives none.
fn check(language: Language, examples: &[(Option<Cue>, String)]) -> Vec<String> {
    let mut misses = Vec::new();
    for (expected, answer) in examples {
        let first = ways_of_asking(answer, language, 0)[0];
        let counts = cue_counts(answer, language);
        let right = match expected {
            Some(cue) => first == cue.ask(),
            None => counts == [0; 6] && first == ProbeKind::ROTATION[0],
        };
        if !right {
            misses.push(format!("{language}: {answer:?} is {expected:?}, asked {first} ({counts:?})"));
        }
    }
    misses
}

#[test]
fn the_way_of_asking_follows_the_labelled_cues_in_every_language() {
    let sets = labelled_examples();
    let languages: Vec<Language> = sets.iter().map(|(language, _)| *language).collect();
    assert_eq!(languages, [Language::De, Language::En, Language::Es, Language::Fr, Language::It]);
    let mut misses = Vec::new();
    for (language, examples) in &sets {
        let language = *language;
        for cue in Cue::ALL {
            assert!(examples.iter().filter(|(c, _)| *c == Some(cue)).count() >= 6, "{language}: six examples of {cue:?}");
        }
        misses.extend(check(language, examples));
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}

#[test]
fn equals_rotate_and_no_cue_keeps_the_rotation() {
    // No cue: the rotation as it was, from the interview's turn.
    for turn in 0..8 {
        let ways = ways_of_asking("Mostly emails and scheduling.", Language::En, turn);
        assert_eq!(ways[0], ProbeKind::ROTATION[turn % ProbeKind::ROTATION.len()]);
    }
    // One judging and one narrating cue, equally strong: the judgement is asked about, a way of the rotation.
    let answer = "Yesterday it was great.";
    let firsts: Vec<ProbeKind> = (0..4).map(|turn| ways_of_asking(answer, Language::En, turn)[0]).collect();
    assert_eq!(firsts, [ProbeKind::Reason; 4]);
}

#[test]
fn a_long_answer_with_a_concrete_example_is_rich_and_a_thin_one_is_not() {
    let long = "I mostly use it for the admin side of the studio, invoices and emails and the endless scheduling \
                with clients who change their minds, and for brainstorming when I am stuck on a brief. For example, \
                last month a client wanted a jingle in three styles and I talked through the options with it before \
                I wrote a single note.";
    assert!(is_rich(long, Language::En));
    assert!(!is_rich(&long.replace("For example, last month", "Often"), Language::En), "no example");
    assert!(!is_rich("For example, yesterday it failed.", Language::En), "too short");
    let french = "Nous utilisons ces outils pour presque tout au bureau, les courriels, les comptes rendus de \
                  réunion, les traductions de documents techniques et même la préparation des présentations pour les \
                  clients, ce qui fait gagner beaucoup de temps à toute l'équipe. Par exemple, la semaine dernière, \
                  un compte rendu d'une réunion de deux heures a été résumé en cinq minutes, et personne n'a dû le relire.";
    assert!(is_rich(french, Language::Fr));
}
