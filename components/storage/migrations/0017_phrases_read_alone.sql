-- Label phrases keep the model's meaning of the phrase read alone, no longer
-- its meaning in its sentence's context (docs/design-decisions.md, "A label
-- is read alone"). Digests whose phrases were kept before wait for the
-- maintenance run to give them their meanings again, so that no synthesis
-- weighs phrases of both kinds against each other.
UPDATE answer_terms SET units = NULL, phrases = NULL, units_by = NULL WHERE phrases IS NOT NULL;
