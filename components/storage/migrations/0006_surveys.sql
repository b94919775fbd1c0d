-- Survey projects: their ordered blocks (docs/surveys.md), as a JSON array.
-- NULL for contextual interviews.
ALTER TABLE projects ADD COLUMN survey_blocks TEXT;
