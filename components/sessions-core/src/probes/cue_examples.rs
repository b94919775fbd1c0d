//! Labelled cue examples per language: what each answer does, as a reader
//! labels it. English, German, French and Spanish examples are written in the
//! manner of the real answers of `tests/fixtures/real-answers` (not taken from
//! them: those check the rules held out); Italian, which has no real answers
//! there, by hand.

use super::*;

const NONE: Option<Cue> = None;
const G: Option<Cue> = Some(Cue::Generalises);
const J: Option<Cue> = Some(Cue::Judges);
const N: Option<Cue> = Some(Cue::Narrates);
const C: Option<Cue> = Some(Cue::Compares);
const W: Option<Cue> = Some(Cue::Worries);
const H: Option<Cue> = Some(Cue::Wishes);

const ENGLISH: &[(Option<Cue>, &str)] = &[
    (G, "I always start a new piece by sketching ideas on the piano."),
    (G, "Usually the admin work eats up most of my mornings."),
    (G, "Everyone in my lab runs their scripts through the same pipeline."),
    (G, "Most of the time the drafts need heavy editing before they go out."),
    (G, "We generally check every result by hand."),
    (G, "Clients tend to ask for changes at the last minute."),
    (J, "Honestly it is frustrating when the tool invents references."),
    (J, "I love how quickly I can try out a new arrangement."),
    (J, "Honestly the whole thing feels exhausting."),
    (J, "AI will replace a lot of the routine coding work."),
    (J, "The summaries are useful but the citations are terrible."),
    (J, "It feels like cheating to me."),
    (W, "I'm worried that studios will stop hiring junior illustrators."),
    (W, "My biggest fear is losing the clients who pay for original work."),
    (W, "There is a real risk that students stop learning the basics."),
    (W, "I'm afraid it makes up sources that look convincing."),
    (W, "What if the model quietly changes the numbers in my tables?"),
    (W, "The data privacy side of it concerns me a lot."),
    (H, "I wish the tools would let me keep my own style."),
    (H, "Ideally it would draft the methods section and leave the rest to me."),
    (H, "I'd love a partner that proposes hypotheses I hadn't thought of."),
    (H, "Hopefully the next version handles citations properly."),
    (H, "What I want is a tool that checks my code without rewriting it."),
    (H, "It would be nice to have one place for all the feedback."),
    (N, "Last week I asked it to clean up a dataset and it deleted half the rows."),
    (N, "Yesterday we tried the new model on our grant proposal."),
    (N, "I sent the draft to my editor and she rewrote the whole ending."),
    (N, "We ran the analysis again and found the same error."),
    (N, "One time a client noticed the generated background and asked about it."),
    (N, "We then went back and redid the whole storyboard by hand."),
    (C, "It is faster than searching the literature myself."),
    (C, "Compared to last year the drafts are much cleaner."),
    (C, "I prefer writing the first version rather than editing a generated one."),
    (C, "Unlike image tools, the music plugins respect my mix."),
    (C, "The output is different from what a human editor would suggest."),
    (C, "I used to outsource transcription, whereas now I do it in minutes."),
    (NONE, "Mostly emails and scheduling."),
    (NONE, "A plugin for mastering tracks."),
    (NONE, "Statistical analysis of survey data in R."),
];

const GERMAN: &[(Option<Cue>, &str)] = &[
    (G, "Wir fahren immer mit dem Auto zur Arbeit."),
    (G, "Normalerweise heizen wir nur zwei Zimmer."),
    (G, "Im Winter nehme ich meistens den Bus."),
    (G, "Jedes Mal stehen die Züge im Stau der Baustelle."),
    (G, "Die meisten Leute kaufen regionales Gemüse nur auf dem Markt."),
    (G, "Ich esse fast nie Fleisch unter der Woche."),
    (J, "Ich finde, Inlandsflüge sollten verboten werden."),
    (J, "Die Preise für Bahntickets sind einfach zu hoch und das ärgert mich."),
    (J, "Das neue Busnetz ist wirklich gut."),
    (J, "Windräder in der Landschaft finde ich schrecklich."),
    (J, "Wärmepumpen sind wichtig für die Zukunft."),
    (J, "Ich glaube, dass Tempo 30 sinnvoll ist."),
    (W, "Ich habe Angst, dass die Energiepreise weiter steigen."),
    (W, "Ich mache mir Sorgen um die Heizkosten im Winter."),
    (W, "Ich befürchte, dass die Mieten weiter steigen."),
    (W, "Das Risiko von Stromausfällen wird unterschätzt."),
    (W, "Radfahren auf der Hauptstraße ist gefährlich."),
    (W, "Viele sind besorgt wegen der neuen Windräder."),
    (H, "Ich hoffe, dass die Gemeinde mehr Radwege baut."),
    (H, "Ich wünsche mir mehr Grün in der Innenstadt."),
    (H, "Idealerweise gäbe es einen Bus alle zehn Minuten."),
    (H, "Es wäre schön, wenn die Bahn pünktlicher fährt."),
    (H, "Hoffentlich kommt die Solarpflicht bald."),
    (H, "Ich hätte gerne einen Bauernmarkt im Dorf."),
    (N, "Letzte Woche habe ich zum ersten Mal ein E-Auto gemietet."),
    (N, "Wir haben die alte Ölheizung im Sommer ausgetauscht."),
    (N, "Gestern ist mein Zug wieder ausgefallen."),
    (N, "Damals hatten wir noch keinen Bus ins Dorf."),
    (N, "Neulich war ich auf einem Bauernmarkt in der Stadt."),
    (N, "Wir haben die Solaranlage selbst auf das Dach gebaut."),
    (C, "Der Zug ist viel günstiger als das Flugzeug."),
    (C, "Früher sind wir jeden Tag mit dem Auto gefahren."),
    (C, "Im Vergleich zu Wien ist das Angebot am Land sehr dünn."),
    (C, "Lieber ein gutes Öffi-Netz statt neuer Straßen."),
    (C, "Das ist anders als in der Stadt, wo alles nah ist."),
    (C, "Holz ist besser für das Klima, Beton schlechter."),
    (NONE, "Mehr Photovoltaik auf öffentlichen Dächern."),
    (NONE, "Ausbau der Nachtzüge in Europa."),
    (NONE, "Regionale Lebensmittel in Schulküchen."),
];

const FRENCH: &[(Option<Cue>, &str)] = &[
    (G, "Les entreprises utilisent toujours nos données sans le dire."),
    (G, "En général les élèves copient les réponses du chatbot."),
    (G, "Tout le monde utilise déjà ces outils au travail."),
    (G, "Les algorithmes favorisent souvent les contenus extrêmes."),
    (G, "Chaque fois que je cherche un article, je tombe sur des textes générés."),
    (G, "La plupart des gens ne lisent jamais les conditions d'utilisation."),
    (J, "Il faut interdire la reconnaissance faciale dans l'espace public."),
    (J, "Je trouve que ces traductions sont excellentes."),
    (J, "Ce serait injuste pour les petits créateurs."),
    (J, "Je pense que l'IA doit rester un outil au service des humains."),
    (J, "Les données d'entraînement devraient être publiques."),
    (J, "Ces outils sont utiles pour traduire des documents."),
    (W, "C'est inquiétant de voir autant d'images fausses."),
    (W, "J'ai peur que les artistes perdent leur travail."),
    (W, "Je crains que les étudiants ne sachent plus écrire."),
    (W, "Le risque, c'est de perdre le contrôle de nos données."),
    (W, "Ces vidéos truquées sont dangereuses pour la démocratie."),
    (W, "Je suis inquiète pour l'emploi des traducteurs."),
    (H, "J'espère que les règles seront les mêmes pour tous."),
    (H, "J'aimerais pouvoir savoir quand un texte est généré."),
    (H, "Idéalement, chaque image générée porterait une mention."),
    (H, "Je souhaite que les artistes soient rémunérés."),
    (H, "Si seulement les outils citaient leurs sources."),
    (H, "Ce serait bien d'avoir un label pour les contenus humains."),
    (N, "Hier j'ai essayé de générer une affiche avec un outil en ligne."),
    (N, "La semaine dernière mon fils a rendu un devoir écrit par une IA."),
    (N, "Nous avons testé un assistant pour le service client."),
    (N, "Une fois, le traducteur a inversé le sens d'une phrase entière."),
    (N, "L'année dernière notre mairie a installé des caméras intelligentes."),
    (N, "J'ai demandé un résumé et il a inventé des chiffres."),
    (C, "Une IA publique serait meilleure qu'une IA privée."),
    (C, "Par rapport aux moteurs de recherche, les réponses sont moins fiables."),
    (C, "Il vaut mieux former les gens plutôt que d'interdire les outils."),
    (C, "Contrairement aux promesses, le travail n'a pas diminué."),
    (C, "Autrefois on vérifiait les sources, alors que maintenant on copie."),
    (C, "C'est différent d'un simple logiciel de correction."),
    (NONE, "Un registre public des algorithmes."),
    (NONE, "La transparence des données d'entraînement."),
    (NONE, "Des cours d'éducation aux médias dès le collège."),
];

const SPANISH: &[(Option<Cue>, &str)] = &[
    (G, "Siempre nos reunimos en el parque antes de marchar."),
    (G, "Normalmente la policía corta internet esos días."),
    (G, "Todo el mundo sale a la calle cuando hay apagones."),
    (G, "Por lo general los vecinos se avisan por mensajes."),
    (G, "Nadie confía en los medios oficiales."),
    (G, "Cada vez que hay una protesta detienen a los organizadores."),
    (J, "Es importante que la marcha sea pacífica."),
    (J, "Es triste ver las calles vacías."),
    (J, "Sería justo liberar a los presos políticos."),
    (J, "Debe haber observadores internacionales en las calles."),
    (J, "Creo que la gente saldrá a la calle igual."),
    (J, "Es injusto que encarcelen a quien piensa diferente."),
    (W, "Me preocupa que detengan a los jóvenes."),
    (W, "Tengo miedo de que haya violencia."),
    (W, "Temo que corten internet ese día."),
    (W, "Hay riesgo de represión en las provincias."),
    (W, "Es peligroso salir solo de noche."),
    (W, "Estoy preocupado por mis hijos."),
    (H, "Ojalá la marcha sea pacífica."),
    (H, "Espero que el mundo nos mire."),
    (H, "Me gustaría votar en elecciones libres."),
    (H, "Quisiera que mi familia pudiera volver."),
    (H, "Idealmente habría un diálogo nacional."),
    (H, "Sería bueno tener acceso a la información."),
    (N, "Ayer fuimos a la plaza con carteles blancos."),
    (N, "La semana pasada detuvieron a mi vecino por una publicación."),
    (N, "Hemos organizado tres reuniones en el barrio."),
    (N, "Una vez la policía nos quitó los teléfonos."),
    (N, "El año pasado marchamos hasta el malecón."),
    (N, "Mi hermano fue citado por la seguridad del estado."),
    (C, "Marchar en silencio es mejor que gritar consignas."),
    (C, "Es más seguro ir en grupo que ir solo."),
    (C, "En lugar de carteles podemos llevar flores blancas."),
    (C, "A diferencia de julio, ahora la gente está organizada."),
    (C, "Es peor quedarse en casa que salir a marchar."),
    (C, "Mientras que en La Habana la gente calla, en el oriente protesta."),
    (NONE, "Ropa blanca y una flor en la mano."),
    (NONE, "Transmisión en directo por las redes sociales."),
    (NONE, "Libertad para los presos políticos."),
];

/// Italian: no real answers were found to model these on, so they are written by hand.
const ITALIAN: &[(Option<Cue>, &str)] = &[
    (G, "Di solito vado al lavoro in bicicletta."),
    (G, "Il treno è sempre in ritardo la mattina."),
    (G, "Tutti nel mio ufficio usano già questi strumenti."),
    (G, "In generale i clienti chiedono modifiche all'ultimo momento."),
    (G, "Spesso le bozze vanno riscritte da capo."),
    (G, "Ogni volta che provo a prenotare il sito si blocca."),
    (J, "Trovo frustrante che l'app si blocchi durante il pagamento."),
    (J, "Mi piace molto la nuova biblioteca del quartiere."),
    (J, "Il servizio dei treni è pessimo."),
    (J, "Il comune dovrebbe costruire più piste ciclabili."),
    (J, "È importante che i bambini giochino all'aperto."),
    (J, "Credo che la situazione migliorerà presto."),
    (W, "Ho paura che i prezzi aumentino ancora."),
    (W, "Temo che chiudano l'ospedale."),
    (W, "C'è il rischio che il quartiere si svuoti."),
    (W, "Attraversare quella strada è pericoloso."),
    (W, "Sono preoccupata per l'affitto."),
    (W, "Mi preoccupa il traffico davanti alla scuola."),
    (H, "Spero che aprano una biblioteca."),
    (H, "Vorrei più autobus la sera."),
    (H, "Magari ci fosse un mercato a km zero."),
    (H, "Mi piacerebbe una piazza senza auto."),
    (H, "Sarebbe bello avere un cinema in paese."),
    (H, "Idealmente il comune ascolterebbe i cittadini."),
    (N, "Ieri ho provato a pagare con il telefono e non ha funzionato."),
    (N, "La settimana scorsa abbiamo visitato tre asili."),
    (N, "Una volta il treno si è fermato in mezzo alla campagna."),
    (N, "Ho chiamato l'assistenza e mi hanno richiamato dopo un'ora."),
    (N, "L'anno scorso abbiamo cambiato fornitore di energia."),
    (N, "Siamo andati in comune per chiedere un permesso."),
    (C, "Il treno è meglio della macchina per andare a Milano."),
    (C, "Rispetto all'anno scorso la bolletta è raddoppiata."),
    (C, "Preferisco il negozio sotto casa piuttosto che il supermercato."),
    (C, "È diverso da quello che ci avevano promesso."),
    (C, "Invece di aspettare, abbiamo scelto un asilo privato."),
    (C, "Il servizio è peggiore di prima."),
    (NONE, "Orari più flessibili per le famiglie."),
    (NONE, "Un parcheggio per le biciclette davanti alla stazione."),
    (NONE, "La mensa della scuola."),
];

/// The way a probe asks first about each example: the one its cue calls for,
/// or the rotation's first when it gives none.
fn check(language: Language, examples: &[(Option<Cue>, &str)]) -> Vec<String> {
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
    let sets = [
        (Language::En, ENGLISH),
        (Language::De, GERMAN),
        (Language::Fr, FRENCH),
        (Language::Es, SPANISH),
        (Language::It, ITALIAN),
    ];
    let mut misses = Vec::new();
    for (language, examples) in sets {
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
