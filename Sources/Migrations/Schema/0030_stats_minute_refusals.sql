-- Feed events refused at POST /v1/events, per minute and reason (unauthorized, too_large,
-- unsupported_media_type, malformed, invalid, unknown_game, game_quota, unrenderable), beside
-- their total in stats_minute_events (outcome 'rejected'). Ingest adds to it once per refused
-- request; the reasons are decided in Swift (IngestRefusal), so no CHECK repeats their list.
CREATE TABLE stats_minute_refusals (
    minute  timestamptz NOT NULL,
    reason  text NOT NULL,
    count   integer NOT NULL CHECK (count >= 0),
    PRIMARY KEY (minute, reason)
);
