-- scorecast: what ingest needs beyond 0001.

-- A `cancelled` event folds a game into status `cancelled` (ScorecastCore's GameStatus): the
-- game was called off or postponed, and its Live Activity ends like after `final`.
ALTER TABLE games DROP CONSTRAINT games_status_check;
ALTER TABLE games ADD CONSTRAINT games_status_check
    CHECK (status IN ('scheduled', 'live', 'suspended', 'final', 'cancelled'));

-- Routine updates are spaced from a channel's last successful send: ingest looks it up for
-- every bound channel, so it must be one index probe.
CREATE INDEX deliveries_channel_sent ON deliveries (channel_id, sent_at) WHERE outcome = 'sent';
