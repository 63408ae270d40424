-- 014: the level of a search's stored interval (ci_lo, ci_hi), as the
-- decision that drew it used it: 0.90 for a one-look confirmation at
-- --alpha 0.05 (one-sided at alpha, so 1 - 2 alpha two-sided), less than
-- that at a later look. NULL for searches stored before 014: their level
-- was not kept, and the report says so rather than guessing one.
ALTER TABLE searches ADD COLUMN ci_level REAL;
