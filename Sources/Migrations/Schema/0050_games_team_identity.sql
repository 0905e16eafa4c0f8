-- Each team's identity as registered with the game: the 3-letter code of the Dynamic Island's
-- compact view and the primary and secondary colours (#RRGGBB), sent in a push-to-start's
-- attributes. NULL: not registered; the attributes then carry the fallbacks (a code from the
-- name's letters, neutral colours). Swift validates and normalises; the checks fence the table.
ALTER TABLE games
    ADD COLUMN home_code text CHECK (home_code ~ '^[A-Z0-9]{3}$'),
    ADD COLUMN away_code text CHECK (away_code ~ '^[A-Z0-9]{3}$'),
    ADD COLUMN home_primary_colour text CHECK (home_primary_colour ~ '^#[0-9A-F]{6}$'),
    ADD COLUMN home_secondary_colour text CHECK (home_secondary_colour ~ '^#[0-9A-F]{6}$'),
    ADD COLUMN away_primary_colour text CHECK (away_primary_colour ~ '^#[0-9A-F]{6}$'),
    ADD COLUMN away_secondary_colour text CHECK (away_secondary_colour ~ '^#[0-9A-F]{6}$');
