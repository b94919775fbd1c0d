-- Quality signals of an interview's answers, decided when it ends
-- (docs/synthesis.md, "Who counts"): a score from 1 to 5 and the flags that
-- lowered it, a JSON array of their names. NULL while it runs, and for
-- interviews that ended before this release.
ALTER TABLE interviews ADD COLUMN quality_score INTEGER;
ALTER TABLE interviews ADD COLUMN quality_flags TEXT;
