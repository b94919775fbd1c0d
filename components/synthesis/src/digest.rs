//! The digest of one interview's answers to one question, as the built-in
//! synthesis stores it (`answer_terms.terms`): a line per answer, its seq
//! then its terms (`text::terms`), so that a synthesis of thousands of
//! interviews reads them instead of re-reading and re-stemming every answer.

/// One answer's line of a digest: its seq and its terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerTerms<'d> {
    pub seq: i64,
    pub terms: Vec<&'d str>,
}

/// The digest of one interview's answers to one question: a line per answer,
/// its seq then its terms, separated by spaces (a term holds no white space).
pub fn encode(answers: &[(i64, Vec<String>)]) -> String {
    let lines: Vec<String> = answers
        .iter()
        .map(|(seq, terms)| std::iter::once(seq.to_string()).chain(terms.iter().cloned()).collect::<Vec<_>>().join(" "))
        .collect();
    lines.join("\n")
}

/// The answers of a digest; a line that does not start with a seq is skipped.
pub fn decode(digest: &str) -> Vec<AnswerTerms<'_>> {
    digest
        .lines()
        .filter_map(|line| {
            let mut parts = line.split(' ').filter(|p| !p.is_empty());
            let seq = parts.next()?.parse().ok()?;
            Some(AnswerTerms { seq, terms: parts.collect() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_round_trip() {
        let digest = encode(&[(3, vec!["ship".into(), "cost".into()]), (5, vec![])]);
        assert_eq!(digest, "3 ship cost\n5");
        assert_eq!(
            decode(&digest),
            [AnswerTerms { seq: 3, terms: vec!["ship", "cost"] }, AnswerTerms { seq: 5, terms: vec![] }]
        );
        assert_eq!(decode("x y\n\n7 a"), [AnswerTerms { seq: 7, terms: vec!["a"] }]);
    }
}
