-- Which model made a digest's sentence meanings (docs/synthesis.md): the
-- static table or all-MiniLM-L6-v2 run by the maintenance run. A synthesis
-- groups the meanings of one model only; NULL (meanings written before this
-- column, which also lack each sentence's terms) are made again by the next
-- maintenance runs, as are those of a lesser model once the better one runs.
ALTER TABLE answer_terms ADD COLUMN units_by TEXT;

-- The digests whose meanings are missing or made by a given model.
DROP INDEX IF EXISTS answer_terms_unembedded;
CREATE INDEX IF NOT EXISTS answer_terms_units_by ON answer_terms (units_by);
