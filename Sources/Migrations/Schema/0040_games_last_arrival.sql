-- When a game's events last arrived: the ingest time, where last_event_at is the time the
-- feed says they happened. A game a feed created is retired after a silence of
-- SCORECAST_FEED_GAME_TIMEOUT_HOURS measured by arrival, so a replay or a backfill of events
-- that happened long ago is news, not silence. Existing games count from their last write.
ALTER TABLE games ADD COLUMN last_arrival_at timestamptz;
UPDATE games SET last_arrival_at = updated_at WHERE last_event_at IS NOT NULL;
