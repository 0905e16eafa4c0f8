-- Games an app opted out of automatic channels for: an admin deleted the game's channel of an
-- app with automatic channels (`scorecast channels delete`), so `channels ensure` and the
-- poller never create one again for that pair. An explicit `channels create` lifts it.
CREATE TABLE channel_opt_outs (
    app_id      bigint NOT NULL REFERENCES apps (id),
    game_id     text NOT NULL REFERENCES games (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, game_id)
);
