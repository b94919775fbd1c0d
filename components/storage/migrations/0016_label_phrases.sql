-- Labels by the model's meanings (docs/synthesis.md, step 4): of each sentence
-- of a digest, the phrases that could name its idea most like the sentence,
-- each with its meaning in the sentence's context (a line per phrase: its
-- answer's seq, its byte span, its vector in base64), written with `units`
-- by the maintenance run where the model runs; NULL otherwise. A column of its
-- own: a synthesis reads it only for the sentences its labels come from.
ALTER TABLE answer_terms ADD COLUMN phrases TEXT;
