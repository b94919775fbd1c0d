-- Themes by meaning (docs/synthesis.md): each digest's quotable sentences and
-- their meanings (sentence vectors), written by the maintenance run after the
-- interview ends (a line per sentence: its answer's seq, its byte span, its
-- vector in base64); NULL until then, empty for answers read in a language the
-- vectors do not cover.
ALTER TABLE answer_terms ADD COLUMN units TEXT;

-- The digests whose sentences have no meanings yet, for the maintenance run.
CREATE INDEX IF NOT EXISTS answer_terms_unembedded ON answer_terms (interview_id, question_index) WHERE units IS NULL;
