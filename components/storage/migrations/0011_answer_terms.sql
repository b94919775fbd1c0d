-- The built-in synthesis (docs/synthesis.md): each ended production interview's
-- answers to each research question (or open survey block), as the interview
-- asked it, reduced to the stems of their content words. One row per interview
-- and question; `language`: the one the answers were read in (the interview's,
-- unless their words are clearly another's); `terms` holds a line per answer:
-- its seq, then its terms.
-- Written in the transaction that ends the interview, deleted with it.
CREATE TABLE IF NOT EXISTS answer_terms (
    project_id TEXT NOT NULL,
    interview_id TEXT NOT NULL,
    question_index INTEGER NOT NULL,
    question TEXT NOT NULL,
    language TEXT NOT NULL,
    terms TEXT NOT NULL,
    PRIMARY KEY (project_id, interview_id, question_index)
) WITHOUT ROWID;

-- Interviews that ended before quality signals existed: the maintenance run
-- assesses them (and writes their digests), a batch at a time.
CREATE INDEX IF NOT EXISTS interviews_unassessed ON interviews (interview_id)
    WHERE quality_score IS NULL AND state <> 'in_progress';
