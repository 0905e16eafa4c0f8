-- scorecast: the device side — apps' client keys, devices and what they follow, push-to-start
-- at kick-off, and the activities' own push tokens (for devices without broadcast channels).
--
-- Forward-only, like every file here.

-- Client keys of the iOS apps (`scorecast apps client-key`), one bundle id for both APNs
-- environments: a build knows its environment and says it when it registers. Like the feed
-- keys, only a SHA-256 hash of the token is kept; the token is shown once.
CREATE TABLE app_client_keys (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    bundle_id     text NOT NULL CHECK (bundle_id ~ '^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$' AND length(bundle_id) <= 155),
    name          text NOT NULL CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
    prefix        text NOT NULL UNIQUE,
    secret_hash   bytea NOT NULL CHECK (length(secret_hash) = 32),
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz,
    revoked_at    timestamptz,
    UNIQUE (bundle_id, name)
);

-- One app install on one phone. `install_id` is the app's own stable id for the install (a
-- UUID it keeps); the push-to-start token (iOS 17.2+, hex) may be absent or pruned (NULL) after
-- APNs called it dead. `supports_channels` (iOS 18+) decides between `input-push-channel` and
-- `input-push-token` at kick-off; `frequent_updates` is the user's Live Activities setting
-- (`frequentPushesEnabled`), off: the game's lighter channel.
CREATE TABLE devices (
    id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id               bigint NOT NULL REFERENCES apps (id),
    install_id           text NOT NULL CHECK (install_id ~ '^[A-Za-z0-9._:-]{1,128}$'),
    push_to_start_token  text CHECK (push_to_start_token ~ '^[0-9a-f]+$' AND length(push_to_start_token) BETWEEN 64 AND 512),
    os_version           text NOT NULL CHECK (os_version ~ '^[0-9]{1,3}(\.[0-9]{1,3}){0,2}$'),
    supports_channels    boolean NOT NULL,
    frequent_updates     boolean NOT NULL DEFAULT true,
    locale               text NOT NULL DEFAULT 'en' CHECK (locale ~ '^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})*$' AND length(locale) <= 35),
    -- Why the push-to-start token was dropped (APNs reason), and when.
    token_pruned_reason  text,
    token_pruned_at      timestamptz,
    last_seen_at         timestamptz NOT NULL DEFAULT now(),
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, install_id)
);
-- Expiring devices silent for SCORECAST_DEVICE_TTL_DAYS.
CREATE INDEX devices_last_seen ON devices (last_seen_at);

-- What a device follows: a team (by the name games carry), a league, or one game.
CREATE TABLE follows (
    device_id   bigint NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    kind        text NOT NULL CHECK (kind IN ('team', 'league', 'game')),
    value       text NOT NULL CHECK (length(value) BETWEEN 1 AND 200),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (device_id, kind, value)
);
-- Kick-off: every device following a game's teams, league or the game itself.
CREATE INDEX follows_target ON follows (kind, value);

-- The push token of one device's Live Activity for one game (`pushTokenUpdates`). A rotated
-- token replaces the previous one in place; `pruned` when APNs called it dead, `ended` when the
-- app said the activity ended. Devices without channels get every update of the game here.
CREATE TABLE activity_tokens (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    device_id       bigint NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    game_id         text NOT NULL REFERENCES games (id),
    token           text NOT NULL CHECK (token ~ '^[0-9a-f]+$' AND length(token) BETWEEN 64 AND 512),
    status          text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended', 'pruned')),
    pruned_reason   text,
    -- The newest payload timestamp sent to this activity (never goes backwards).
    last_timestamp  bigint NOT NULL DEFAULT 0,
    ended_at        timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (device_id, game_id)
);
CREATE INDEX activity_tokens_game ON activity_tokens (game_id) WHERE status = 'active';

-- Kick-offs: one row per game whose activities were (or are being) started, and what did it.
-- The row is the fan-out's durable start: the planned starts below are written with it.
CREATE TABLE kickoffs (
    game_id     text PRIMARY KEY REFERENCES games (id),
    trigger     text NOT NULL CHECK (trigger IN ('lead-time', 'start-event', 'command')),
    planned     integer NOT NULL DEFAULT 0 CHECK (planned >= 0),
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One push-to-start per device and game, ever: the primary key is the guarantee that a start
-- is never sent twice. `sending` rows are in flight under a lease; one whose lease expired was
-- maybe accepted by APNs, so it is not sent again (it ends `failed`, reason `Interrupted`).
CREATE TABLE activity_starts (
    device_id         bigint NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    game_id           text NOT NULL REFERENCES games (id),
    status            text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'started', 'failed')),
    -- How the started activity gets its updates: a channel (iOS 18+) or its own push token.
    input             text CHECK (input IN ('channel', 'light-channel', 'token')),
    attempts          integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    not_before        timestamptz,
    lease_owner       text,
    lease_expires_at  timestamptz,
    status_code       integer,
    reason            text,
    apns_id           text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    finished_at       timestamptz,
    PRIMARY KEY (device_id, game_id),
    CHECK ((lease_owner IS NULL) = (lease_expires_at IS NULL))
);
CREATE INDEX activity_starts_pending ON activity_starts (game_id) WHERE status = 'pending';
CREATE INDEX activity_starts_sending ON activity_starts (lease_expires_at) WHERE status = 'sending';

-- The token path's outbox: at most one pending update per activity token (coalesced: only the
-- newest state matters; an alert folded in stays), fenced on version like the channel outbox.
CREATE TABLE activity_outbox (
    activity_token_id  bigint PRIMARY KEY REFERENCES activity_tokens (id) ON DELETE CASCADE,
    version            bigint NOT NULL DEFAULT 1,
    payload            bytea NOT NULL,
    payload_timestamp  bigint NOT NULL,
    priority           smallint NOT NULL CHECK (priority IN (5, 10)),
    alerting           boolean NOT NULL DEFAULT false,
    due_at             timestamptz NOT NULL DEFAULT now(),
    lease_owner        text,
    lease_expires_at   timestamptz,
    attempts           integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error         text,
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CHECK ((lease_owner IS NULL) = (lease_expires_at IS NULL))
);
CREATE INDEX activity_outbox_due ON activity_outbox (due_at);

-- How far each game's updates were handed to the token path (the game's applied seq).
CREATE TABLE activity_cursors (
    game_id      text PRIMARY KEY REFERENCES games (id),
    applied_seq  bigint NOT NULL CHECK (applied_seq >= 0)
);

-- The channel tier a binding serves: `standard`, or `light` for devices whose user turned
-- frequent updates off (priority 10 only for kick-off, goals and full time).
ALTER TABLE channel_bindings ADD COLUMN tier text NOT NULL DEFAULT 'standard' CHECK (tier IN ('standard', 'light'));
