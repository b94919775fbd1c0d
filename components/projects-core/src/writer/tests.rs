//! Tests of the built-in writer: prompts of every style, the README's, cuts, clauses and random prompts.

use super::*;
use super::words::{key, tokens};
use super::text::trim_end_punctuation;
use super::clauses::noun_clause;

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
}

#[test]
fn questions_become_noun_clauses() {
    let clause = |q: &str| noun_clause(&tokens(trim_end_punctuation(q)), true);
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
