//! The language an answer is read in: the interview's, unless the answer is
//! written in another alphabet (an English answer in an Arabic interview, a
//! French one in a Russian interview). Then it is read in the language of
//! that alphabet whose stop words it uses most, so that its quotes follow the
//! rules of the words it is written in: Arabic's rules cut "Expensive
//! shipping for a single paperback" to «Expensive shipping for». Languages of
//! one alphabet are told apart only by that: an English answer in a German
//! interview is read as German.

use super::lexicon::Lexicon;
use crate::Language;
use text_enum::TextEnum;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Alphabet {
    Latin,
    Cyrillic,
    Greek,
    Hebrew,
    Arabic,
    Japanese,
}

impl Alphabet {
    fn of_language(language: Language) -> Alphabet {
        match language {
            Language::En | Language::Fr | Language::De | Language::Es | Language::It => Alphabet::Latin,
            Language::Ru | Language::Uk => Alphabet::Cyrillic,
            Language::El => Alphabet::Greek,
            Language::He => Alphabet::Hebrew,
            Language::Ar => Alphabet::Arabic,
            Language::Ja => Alphabet::Japanese,
        }
    }

    fn of_letter(c: char) -> Option<Alphabet> {
        match c {
            'a'..='z' | 'A'..='Z' | '\u{00C0}'..='\u{024F}' => Some(Alphabet::Latin),
            '\u{0400}'..='\u{052F}' => Some(Alphabet::Cyrillic),
            '\u{0370}'..='\u{03FF}' | '\u{1F00}'..='\u{1FFF}' => Some(Alphabet::Greek),
            '\u{0590}'..='\u{05FF}' => Some(Alphabet::Hebrew),
            '\u{0600}'..='\u{06FF}' | '\u{0750}'..='\u{077F}' => Some(Alphabet::Arabic),
            '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' => Some(Alphabet::Japanese),
            _ => None,
        }
    }
}

/// The language `answer` is read in, in an interview of `interview`'s language.
pub fn reading_language(answer: &str, interview: Language) -> Language {
    let own = Alphabet::of_language(interview);
    let mut counts: Vec<(Alphabet, usize)> = Vec::new();
    for alphabet in answer.chars().filter_map(Alphabet::of_letter) {
        match counts.iter_mut().find(|(a, _)| *a == alphabet) {
            Some((_, count)) => *count += 1,
            None => counts.push((alphabet, 1)),
        }
    }
    let own_letters = counts.iter().find(|(a, _)| *a == own).map_or(0, |(_, count)| *count);
    // Written mostly in another alphabet (the interview's wins a tie with it).
    let most = |best: (Alphabet, usize), next: (Alphabet, usize)| if next.1 > best.1 { next } else { best };
    let Some((written_in, _)) = counts.into_iter().filter(|&(a, count)| a != own && count > own_letters).reduce(most) else {
        return interview;
    };
    let candidates = Language::NAMES.iter().filter_map(|name| Language::parse(name)).filter(|l| Alphabet::of_language(*l) == written_in);
    let words = super::words::words(answer);
    let stop_words = |language: Language| {
        let lexicon = Lexicon::of(language);
        words.iter().filter(|w| lexicon.is_stop_listed(&w.normalized)).count()
    };
    // The first of the alphabet's languages wins a tie (English among the Latin ones).
    candidates
        .map(|l| (stop_words(l), l))
        .reduce(|best, next| if next.0 > best.0 { next } else { best })
        .map_or(interview, |(_, l)| l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_read_in_the_language_of_its_alphabet() {
        // The interview's own language, whatever a few words of another alphabet say.
        assert_eq!(reading_language("الشحن مكلف جدا عند الدفع", Language::Ar), Language::Ar);
        assert_eq!(reading_language("الشحن مكلف جدا مع PayPal", Language::Ar), Language::Ar);
        assert_eq!(reading_language("Versand ist zu teuer", Language::De), Language::De);
        assert_eq!(reading_language("42 !", Language::Ru), Language::Ru);
        // Another alphabet: the language of it whose stop words the answer uses.
        assert_eq!(reading_language("Expensive shipping for a single paperback makes me close the tab.", Language::Ar), Language::En);
        assert_eq!(reading_language("Les frais de livraison sont trop élevés pour moi.", Language::Ru), Language::Fr);
        assert_eq!(reading_language("Доставка слишком дорогая для меня.", Language::En), Language::Ru);
        assert_eq!(reading_language("送料が高すぎます。", Language::De), Language::Ja);
    }
}
