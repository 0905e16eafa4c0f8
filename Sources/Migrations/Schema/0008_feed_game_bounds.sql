-- Bounds on what a feed can make scorecast create: which feed key created a game,
-- so that a per-key hourly quota of new games can be counted and games a feed created that
-- never start or end can be retired after a timeout. NULL: created by an admin (`games add`)
-- or before this migration.
ALTER TABLE games ADD COLUMN created_by_feed text;
CREATE INDEX games_created_by_feed ON games (created_by_feed, created_at) WHERE created_by_feed IS NOT NULL;
