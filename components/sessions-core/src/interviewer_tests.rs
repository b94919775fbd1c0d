//! The interviewer's unit tests (`interviewer.rs`).

use projects_core::ProjectFields;
use super::*;
use crate::strings;

fn plan(questions: &str) -> Plan {
    Plan {
        objective: "Understand how parents of toddlers choose a daycare.".into(),
        questions: split_questions(questions),
        probes_per_question: 3,
        length_minutes: 10,
        guidelines: None,
        language: Language::En,
    }
}

fn turn(seq: i64, kind: TurnKind, question_index: Option<usize>, text: &str) -> Turn {
    let speaker = if kind == TurnKind::Answer { Speaker::Interviewee } else { Speaker::Interviewer };
    Turn { seq, speaker, kind, question_index, source: TurnSource::BuiltIn, text: text.into(), created_at: String::new() }
}

#[test]
fn questions_are_split_by_line_marker_and_question_mark() {
    assert_eq!(
        split_questions("1. How do you choose?\n2) What matters most?\n- Who decides?"),
        vec!["How do you choose?", "What matters most?", "Who decides?"]
    );
    assert_eq!(split_questions("How do you choose? What matters most?"), vec!["How do you choose?", "What matters most?"]);
    assert_eq!(split_questions("Describe your last search for a daycare"), vec!["Describe your last search for a daycare"]);
    assert_eq!(split_questions("  \n?? \n"), vec!["??"]);
    assert_eq!(split_questions("2024 budget: how was it spent?"), vec!["2024 budget: how was it spent?"]);
}

#[test]
fn the_length_caps_the_questions() {
    assert_eq!((max_questions(10), max_questions(15), max_questions(20)), (4, 6, 8));
    let fields: ProjectFields = serde_json::from_value(serde_json::json!({
        "project_name": "n", "project_objective": "o", "research_questions": "One? Two? Three? Four? Five? Six?", "success_criteria": "s",
        "recruiting_criteria": "r", "interview_modes": ["typing"], "camera_access": "not_allowed",
        "interview_languages": ["en"], "interview_length": 10
    }))
    .unwrap();
    assert_eq!(Plan::for_project(&fields, Language::En).questions.len(), 4);
}

#[test]
fn the_opening_says_what_it_is_about_in_plain_words() {
    let en = strings::for_language("en").interviewer;
    let opening = opening(&plan("How do you choose?"), &en);
    assert_eq!(opening.kind, TurnKind::Opening);
    assert_eq!(
        opening.text,
        "Hello, and thank you for taking the time to talk with me. I would like to learn about how parents of \
         toddlers choose a daycare. There are no right or wrong answers: I am interested in your own experience \
         and opinions. Let's begin. How do you choose?"
    );
    let mut french = plan("Comment choisissez-vous ?");
    french.language = Language::Fr;
    let text = super::opening(&french, &strings::for_language("fr").interviewer).text;
    assert!(text.contains("Understand how parents of toddlers choose a daycare."), "{text}");
    assert_eq!(topic("Our goal is retention."), None);
    assert_eq!(topic("Identify the main pain points in checkout!"), Some("the main pain points in checkout".into()));
    // The objective the built-in brief writer gives such a study (projects/writer).
    let written = "Understand how parents of toddlers choose a daycare. The interviews should reveal, from first-hand \
         experience, what the people concerned need, what gets in their way and where there are opportunities \
         for improvement.";
    assert_eq!(topic(written).as_deref(), Some("how parents of toddlers choose a daycare"));
    // A sentence goes on after an abbreviation ("e.g."), as everywhere in the product, and across a line break (white space collapsed).
    assert_eq!(topic("Understand how people pick a plan, e.g. by price. Then more.").as_deref(), Some("how people pick a plan, e.g. by price"));
    assert_eq!(topic("Understand why people cancel\nand what would keep them.").as_deref(), Some("why people cancel and what would keep them"));
}

/// A conversation driven through [`next`]: each answer is appended with the
/// interviewer's reply, one minute apart.
struct Conversation {
    plan: Plan,
    strings: InterviewerStrings,
    turns: Vec<Turn>,
}

impl Conversation {
    fn start(plan: Plan) -> Conversation {
        let strings = strings::for_language(plan.language.as_str()).interviewer;
        let opening = opening(&plan, &strings);
        let turns = vec![turn(0, opening.kind, opening.question_index, &opening.text)];
        Conversation { plan, strings, turns }
    }

    fn answer(&mut self, text: &str) -> Message {
        self.answer_at(text, self.turns.len() as f64 / 2.0)
    }

    fn answer_at(&mut self, text: &str, elapsed_minutes: f64) -> Message {
        let last = self.turns.iter().rev().find(|t| t.speaker == Speaker::Interviewer).unwrap();
        let seq = self.turns.len() as i64;
        self.turns.push(turn(seq, TurnKind::Answer, answered_question(last), text));
        let reply = next(&self.plan, &self.strings, &self.turns, elapsed_minutes);
        let mut stored = turn(seq + 1, reply.kind, reply.question_index, &reply.text);
        stored.source = reply.source;
        self.turns.push(stored);
        reply
    }
}

#[test]
fn the_budget_comes_from_the_length_and_the_question_count() {
    let budgets: Vec<usize> = [(10, 1), (10, 2), (10, 3), (10, 4), (15, 3), (15, 6), (20, 5), (20, 8)]
        .into_iter()
        .map(|(length, questions)| probe_budget(length, questions))
        .collect();
    assert_eq!(budgets, vec![3, 3, 2, 1, 3, 1, 3, 1]);
    let fields = |guidelines: Option<&str>| -> ProjectFields {
        serde_json::from_value(serde_json::json!({
            "project_name": "n", "project_objective": "o", "research_questions": "One? Two? Three?", "success_criteria": "s",
            "recruiting_criteria": "r", "interview_modes": ["typing"], "camera_access": "not_allowed",
            "interview_languages": ["en"], "interview_length": 10, "specific_guidelines": guidelines
        }))
        .unwrap()
    };
    assert_eq!(Plan::for_project(&fields(None), Language::En).probes_per_question, 2);
    assert_eq!(Plan::for_project(&fields(Some("Be friendly.")), Language::En).probes_per_question, 2);
    assert_eq!(Plan::for_project(&fields(Some("Please do not probe on income.")), Language::En).probes_per_question, 0);
}

#[test]
fn substantive_and_thin_answers_are_probed_until_the_budget_is_spent() {
    let mut talk = Conversation::start(plan("How do you choose?\nWhat matters most?"));
    let first = talk.answer("Hidden shipping costs at the last step make me leave.");
    assert_eq!((first.kind, first.question_index), (TurnKind::Probe, Some(0)));
    assert_eq!(first.text, "You brought up “Hidden shipping costs”. Could you say more about that?");
    // It narrates, but no way of asking what came of it fits a thing: more about the thing, never
    // about "Last week", which only says when, nor about a clause cut open ("shop added twelve").
    let second = talk.answer("Last week a shoe shop added twelve euros for delivery.");
    assert_eq!(second.text, "You mentioned “shoe shop”. Could you tell me more about that?");
    // The quote would be the whole answer: asked in the interviewer's own words.
    let third = talk.answer("Price.");
    assert_eq!(third.text, "Could you say a little more about what that looks like for you?");
    let moved_on = talk.answer("I left the shop and bought the shoes elsewhere.");
    assert_eq!((moved_on.kind, moved_on.question_index), (TurnKind::Question, Some(1)), "three probes spent");
    assert_eq!(moved_on.text, "Thank you. What matters most?");
    let probe = talk.answer("Yes.");
    // Nothing to quote, and the first plain probe already said: the next.
    assert_eq!((probe.kind, probe.text.as_str()), (TurnKind::Probe, "What makes you say that?"), "nothing to quote");
}

#[test]
fn an_answer_that_declines_moves_on_politely_and_the_closing_follows_the_wrap_up() {
    let mut talk = Conversation::start(plan("How do you choose?\nWhat matters most?"));
    let next_question = talk.answer("I don't know.");
    assert_eq!((next_question.kind, next_question.text.as_str()), (TurnKind::Question, "That's all right. What matters most?"));
    let wrap_up = talk.answer("Nothing, really.");
    assert_eq!((wrap_up.kind, wrap_up.text.as_str()), (TurnKind::WrapUp, "That's all right. Before we finish: is there anything else you would like to add?"));
    let closing = talk.answer("The opening hours, maybe, they matter a lot to working parents.");
    assert_eq!((closing.kind, closing.text.as_str()), (TurnKind::Closing, talk.strings.closing.as_str()));
    let said: Vec<&str> = talk.turns.iter().filter(|t| t.speaker == Speaker::Interviewer).map(|t| t.text.as_str()).collect();
    assert_eq!(said.len(), 4);
}

#[test]
fn a_goodbye_thanks_or_thats_all_gets_no_follow_up_in_any_language() {
    // Mid-interview: the next question, thanked; after the last question: the closing, no wrap-up.
    let mut talk = Conversation::start(plan("How do you choose?\nWhat matters most?"));
    assert_eq!(talk.answer("Hidden shipping costs at the last step make me leave.").kind, TurnKind::Probe);
    let next_question = talk.answer("Thank you!");
    assert_eq!((next_question.kind, next_question.text.as_str()), (TurnKind::Question, "Thank you. What matters most?"));
    let closing = talk.answer("No, that's it! I enjoyed getting to talk about this, thank you :)");
    assert_eq!(closing.kind, TurnKind::Closing);
    // After a probe too, and a pleasantry that does not close still gets no probe.
    let mut talk = Conversation::start(plan("How do you choose?\nWhat matters most?\nWho decides?"));
    assert_eq!(talk.answer("Hidden shipping costs at the last step make me leave.").kind, TurnKind::Probe);
    assert_eq!(talk.answer("Bye!").kind, TurnKind::Question);
    let after_praise = talk.answer("Great questions!");
    assert_eq!((after_praise.kind, after_praise.question_index), (TurnKind::Question, Some(2)));
    // A greeting alone to the opening: the first question again.
    let mut talk = Conversation::start(plan("How do you choose?\nWhat matters most?"));
    let again = talk.answer("Hi, thanks for having me!");
    assert_eq!((again.kind, again.question_index, again.text.as_str()), (TurnKind::Question, Some(0), "Thank you. How do you choose?"));
    assert_eq!(talk.answer("Reviews from other buyers.").kind, TurnKind::Probe);
    // Every interview language: a goodbye, thanks or "that's all" to a question is never probed.
    let closing_answers = [
        (Language::En, "Bye!"), (Language::En, "That's all that comes to mind for now. Thanks!"), (Language::De, "Danke, das war's!"),
        (Language::De, "Tschüss!"), (Language::Fr, "Merci, c'est tout !"), (Language::Fr, "Au revoir !"),
        (Language::Es, "¡Muchas gracias, eso es todo!"), (Language::Es, "¡Adiós!"), (Language::It, "Grazie mille, è tutto!"),
        (Language::Ar, "شكراً جزيلاً!"), (Language::Ru, "Спасибо, это всё."), (Language::Ja, "以上です。ありがとうございました。"),
        (Language::He, "תודה רבה!"), (Language::El, "Ευχαριστώ πολύ!"), (Language::Uk, "Дякую, це все."),
    ];
    for (language, answer) in closing_answers {
        let mut questions = plan("First?\nSecond?\nThird?");
        questions.language = language;
        let mut talk = Conversation::start(questions);
        assert_eq!(talk.answer("Hidden shipping costs at the last step make me leave.").kind, TurnKind::Probe, "{language}");
        let reply = talk.answer(answer);
        assert_eq!((reply.kind, reply.question_index), (TurnKind::Question, Some(1)), "{language}: {answer} got {reply:?}");
    }
}

#[test]
fn an_answer_in_another_alphabet_is_quoted_by_its_own_words_rules() {
    // An Arabic interview answered in English: asked in Arabic, about a whole English phrase
    // (Arabic's rules, which know no English function word, quoted «Expensive shipping for»).
    let mut arabic = plan("First?\nSecond?");
    arabic.language = Language::Ar;
    let mut talk = Conversation::start(arabic);
    let probe = talk.answer("Expensive shipping for a single paperback makes me close the tab.");
    assert_eq!(probe.kind, TurnKind::Probe);
    let ar = strings::for_language("ar").interviewer;
    let quoted = probes::audit::quoted_phrases(&probe.text, Language::Ar);
    assert_eq!(quoted.len(), 1, "{}", probe.text);
    let last_word = quoted[0].rsplit(' ').next().unwrap();
    assert!(!["for", "a", "me", "the"].contains(&last_word), "{}", probe.text);
    assert!(ar.asking.read(&probe.text).is_some(), "not an Arabic wording: {}", probe.text);
    // Its courtesies and refusals are read in its words too: an English goodbye moves on.
    assert_eq!(talk.answer("Thanks, that's all from me!").kind, TurnKind::Question);
}

#[test]
fn time_decides_too_and_guidelines_can_forbid_probes() {
    let mut talk = Conversation::start(plan("First question?\nSecond question?\nThird question?"));
    // 10 minutes, 3 questions: after 6 minutes a probe, the two questions left and the wrap-up no longer fit.
    let late = talk.answer_at("The waiting list decided everything for us.", 6.5);
    assert_eq!((late.kind, late.question_index), (TurnKind::Question, Some(1)));
    let over = talk.answer_at("The waiting list decided everything for us.", 10.0);
    assert_eq!(over.kind, TurnKind::Closing);
    assert!(over.text.starts_with(&talk.strings.time_up));

    let mut silent = plan("First question?\nSecond question?");
    silent.probes_per_question = 0;
    let mut talk = Conversation::start(silent);
    assert_eq!(talk.answer("The waiting list decided everything for us.").kind, TurnKind::Question);
}

#[test]
fn no_interviewer_message_repeats_when_the_answers_do() {
    let mut talk = Conversation::start(plan("How do you choose?\nWhat matters most?\nWho decides?"));
    for _ in 0..20 {
        if talk.turns.last().unwrap().kind == TurnKind::Closing {
            break;
        }
        talk.answer("We compared three places and chose the one closest to work, mainly for the commute.");
    }
    let said: Vec<&str> = talk.turns.iter().filter(|t| t.speaker == Speaker::Interviewer).map(|t| t.text.as_str()).collect();
    let mut unique = said.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), said.len(), "{said:#?}");
    assert_eq!(talk.turns.last().unwrap().kind, TurnKind::Closing);
    for question in &talk.plan.questions {
        assert!(said.iter().any(|s| s.ends_with(question.as_str())), "{question} was asked");
    }
}

#[test]
fn the_builtin_summary_quotes_what_carries_each_answer_and_its_follow_ups() {
    let plan = plan("How do you choose a daycare?\nWhat matters most?\nWho decides?");
    let turns = vec![
        turn(0, TurnKind::Opening, Some(0), "…"),
        turn(1, TurnKind::Answer, Some(0), "Price, mostly. The price of the daycare decides it for us, because money is tight this year."),
        turn(2, TurnKind::Probe, Some(0), "You mentioned “Price”. Why?"),
        turn(3, TurnKind::Answer, Some(0), "We compared the price of four places. I also like sunny rooms, but that is a detail."),
        turn(4, TurnKind::Probe, Some(0), "You said “four places”. How so?"),
        turn(5, TurnKind::Answer, Some(0), "Ten minutes on foot matters too. The cheapest place was far away, so distance counted a bit. \
            In the end we paid a little more for the place near my office, and the price difference was worth it."),
        turn(6, TurnKind::Question, Some(1), "What matters most?"),
        turn(7, TurnKind::Answer, Some(1), "Friendly staff who know my son by name. Friendly staff make the mornings easy for everyone. \
            At the first place nobody greeted us, and we left after a week. The building itself was old but clean, \
            and the garden was small. We did not mind the building at all, to be honest."),
        turn(8, TurnKind::Probe, Some(1), "You mentioned “Friendly staff”. When?"),
    ];
    let summary = builtin_summary(&plan, &turns);
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(lines[0], "How do you choose a daycare?", "{summary}");
    assert!(lines[1].starts_with('“') && lines[1].contains("price"), "{summary}");
    assert_eq!(lines[2], "What matters most?", "{summary}");
    assert!(lines[3].contains("Friendly staff"), "{summary}");
    assert_eq!(lines.len(), 4, "a question not answered has no part: {summary}");
    assert!(!summary.contains("You mentioned"), "the interviewer's words are not the summary: {summary}");
    let said: usize = turns.iter().filter(|t| t.speaker == Speaker::Interviewee).map(|t| t.text.split_whitespace().count()).sum();
    assert!(summary.split_whitespace().count() * 10 <= said * 3, "{summary}");
}

#[test]
fn no_model_means_builtin_wording() {
    let en = strings::for_language("en").interviewer;
    let plan = plan("Why?");
    let step = opening(&plan, &en);
    assert_eq!(word_with_model(&plan, &[], step.clone(), &LlmConfig::disabled()), step);
}

/// A long answer with a concrete example, to questions about the checkout.
const RICH: [&str; 3] = [
    "Mostly the delivery fees. I compare the final price in two or three shops before I pay, and I leave whenever a \
     fee appears only at the last step, because it feels like a trick. For example, last week a shoe shop added twelve \
     euros for delivery right before payment, so I closed the tab and bought the same pair in a store in town.",
    "Trust matters too. I pay with a card I can block, I read the reviews of other buyers, and I look for a real \
     address and a phone number. Last month a site without any of that offered a jacket at half price; I searched for \
     the company name, found complaints from people who never got their parcels, and did not order.",
    "Speed, really. If the checkout asks me to create an account, enter my address twice and confirm an email before \
     I can pay, I give up halfway, even when I wanted the product. For instance, yesterday a bookshop made me wait for \
     a confirmation code that never arrived, and I bought the book from a bigger shop in two clicks.",
];

#[test]
fn a_rich_answer_moves_on_after_a_first_probe_and_a_thin_one_is_always_probed() {
    let mut talk = Conversation::start(plan("How do you choose a shop?\nWhat makes you trust a shop?"));
    // The question's first answer is probed, however rich.
    assert_eq!(talk.answer(RICH[0]).kind, TurnKind::Probe);
    // A rich answer after that moves on, naming what it said.
    let moved_on = talk.answer(RICH[1]);
    assert_eq!((moved_on.kind, moved_on.question_index), (TurnKind::Question, Some(1)));
    assert!(moved_on.text.starts_with("Thank you, what you said about “"), "{}", moved_on.text);
    assert!(moved_on.text.ends_with("” is very helpful. What makes you trust a shop?"), "{}", moved_on.text);
    // Thin answers are probed while the budget lasts.
    assert_eq!(talk.answer("Reviews.").kind, TurnKind::Probe);
    assert_eq!(talk.answer("A phone number on the site.").kind, TurnKind::Probe);
    // The last question's rich answer goes on to the wrap-up.
    let wrap_up = talk.answer(RICH[2]);
    assert_eq!(wrap_up.kind, TurnKind::WrapUp);
    assert!(wrap_up.text.ends_with("” is very helpful. Before we finish: is there anything else you would like to add?"), "{}", wrap_up.text);
    // Without a first probe, the same rich answer is probed.
    let mut fresh = Conversation::start(plan("How do you choose a shop?"));
    assert_eq!(fresh.answer(RICH[2]).kind, TurnKind::Probe);
}

#[test]
fn a_message_written_alone_is_taken_without_its_label_quotes_or_the_turn_after_it() {
    let ok = |text: &str| message_answer(text).unwrap();
    assert_eq!(ok("What did you do next?"), "What did you do next?");
    assert_eq!(ok("Interviewer: What did you do next?"), "What did you do next?");
    assert_eq!(ok("\"What did you do next?\""), "What did you do next?");
    assert_eq!(ok("“What did you do next?”"), "What did you do next?");
    assert_eq!(ok("What did you do next?\nInterviewee: I left."), "What did you do next?");
    assert_eq!(ok(r#"{"message": "What did you do next?"}"#), "What did you do next?");
    // Quotation marks inside the message stay.
    assert_eq!(ok("\"Too slow\", you said. \"Slow\" how?"), "\"Too slow\", you said. \"Slow\" how?");
    for bad in ["", "   ", "Interviewer:", "Interviewee: I left.", "\"\""] {
        assert!(message_answer(bad).is_err(), "{bad:?}");
    }
    assert!(message_answer(&"why ".repeat(400)).is_err(), "longer than a message");
}
