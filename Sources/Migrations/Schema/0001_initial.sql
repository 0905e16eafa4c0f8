-- scorecast: the initial schema.
--
-- Forward-only: a file that has been applied is never edited (the migrator refuses a changed
-- checksum); a change is a new numbered file. Every status column is checked against its
-- closed set of values so that no code path can write a state the rest of the system does
-- not understand.

-- Apps: one iOS app in one APNs environment, with the credentials to reach APNs for it.
-- The provider key itself never enters the database: only the path of its .p8 file.
CREATE TABLE apps (
    id                      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    bundle_id               text NOT NULL CHECK (bundle_id ~ '^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$' AND length(bundle_id) <= 155),
    environment             text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    team_id                 text NOT NULL CHECK (team_id ~ '^[A-Z0-9]{10}$'),
    key_id                  text NOT NULL CHECK (key_id ~ '^[A-Z0-9]{10}$'),
    key_path                text NOT NULL CHECK (key_path <> ''),
    -- NSSupportsLiveActivitiesFrequentUpdates: selects the larger priority-10 budget profile.
    frequent_updates        boolean NOT NULL DEFAULT false,
    -- Priority-10 sends per channel per hour; NULL takes the profile's configured default.
    budget_per_hour         integer CHECK (budget_per_hour IS NULL OR budget_per_hour BETWEEN 0 AND 10000),
    -- How Date fields of content-state are encoded (apns.md §4): seconds since 2001-01-01
    -- (the default JSONDecoder), UNIX seconds, or ISO 8601 text.
    date_encoding           text NOT NULL DEFAULT 'reference-date'
                            CHECK (date_encoding IN ('reference-date', 'unix-seconds', 'iso8601')),
    -- Per-app renames/omissions of the default content-state keys, e.g. {"homeScore": "home"}.
    content_state_mapping   jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(content_state_mapping) = 'object'),
    -- How long an ended activity stays on the Lock Screen after `final`.
    dismissal_delay_seconds integer NOT NULL DEFAULT 1800 CHECK (dismissal_delay_seconds BETWEEN 0 AND 14400),
    -- Alerts as loc-key/loc-args the phone localizes, or plain text; and their sound (NULL: silent).
    alert_style             text NOT NULL DEFAULT 'localized' CHECK (alert_style IN ('localized', 'plain')),
    alert_sound             text DEFAULT 'default' CHECK (alert_sound IS NULL OR length(alert_sound) BETWEEN 1 AND 64),
    -- Whether `channels ensure` (and the feed path) create a channel for every game automatically.
    auto_channels           boolean NOT NULL DEFAULT true,
    -- Storage policy of channels created automatically: 0 No Message Stored, 1 Most Recent.
    default_storage_policy  smallint NOT NULL DEFAULT 0 CHECK (default_storage_policy IN (0, 1)),
    -- Set when APNs rejects the credentials: sends stop until an admin fixes and resumes.
    paused_reason           text,
    paused_at               timestamptz,
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    UNIQUE (bundle_id, environment)
);

-- Games: the feed's games, their folded current state and the highest applied event seq.
CREATE TABLE games (
    id             text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9._:-]{1,128}$'),
    league         text NOT NULL DEFAULT '',
    sport          text NOT NULL DEFAULT 'football',
    home_team      text NOT NULL DEFAULT '',
    away_team      text NOT NULL DEFAULT '',
    starts_at      timestamptz,
    status         text NOT NULL DEFAULT 'scheduled'
                   CHECK (status IN ('scheduled', 'live', 'suspended', 'final')),
    state          jsonb NOT NULL DEFAULT '{}'::jsonb,
    applied_seq    bigint NOT NULL DEFAULT 0 CHECK (applied_seq >= 0),
    last_event_at  timestamptz,
    finished_at    timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX games_status ON games (status) WHERE status <> 'final';
CREATE INDEX games_finished ON games (finished_at) WHERE finished_at IS NOT NULL;

-- Channels: APNs broadcast channels. The APNs id is opaque text, stored byte for byte.
CREATE TABLE channels (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    apns_channel_id  text NOT NULL CHECK (apns_channel_id <> ''),
    app_id           bigint NOT NULL REFERENCES apps (id),
    storage_policy   smallint NOT NULL CHECK (storage_policy IN (0, 1)),
    -- active: in use; retiring: its game ended, deletion pending; deleted: deleted at APNs;
    -- gone: APNs answered ChannelNotRegistered (deleted behind our back).
    status           text NOT NULL DEFAULT 'active'
                     CHECK (status IN ('active', 'retiring', 'deleted', 'gone')),
    -- The newest payload timestamp sent, so that timestamps never go backwards (apns.md §4).
    last_timestamp   bigint NOT NULL DEFAULT 0,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    deleted_at       timestamptz,
    UNIQUE (app_id, apns_channel_id)
);
CREATE INDEX channels_app_status ON channels (app_id, status);

-- Which channels a game's updates go to (usually one per game and app).
CREATE TABLE channel_bindings (
    channel_id  bigint NOT NULL REFERENCES channels (id),
    game_id     text NOT NULL REFERENCES games (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (channel_id, game_id)
);
CREATE INDEX channel_bindings_game ON channel_bindings (game_id);

-- Channels created at APNs whose registry write failed and whose compensating delete also
-- failed: the reconciler deletes them later, so nothing leaks.
CREATE TABLE channel_orphans (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id           bigint NOT NULL REFERENCES apps (id),
    apns_channel_id  text NOT NULL,
    reason           text NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    UNIQUE (app_id, apns_channel_id)
);

-- Feed API keys: only a SHA-256 hash of the secret is kept; the secret is shown once.
CREATE TABLE api_keys (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text NOT NULL UNIQUE CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
    prefix        text NOT NULL UNIQUE,
    secret_hash   bytea NOT NULL CHECK (length(secret_hash) = 32),
    -- When set, requests must carry an HMAC-SHA256 signature made with this secret.
    hmac_secret   text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz,
    revoked_at    timestamptz
);

-- Every accepted feed event; (feed, feed_event_id) is the idempotency key.
CREATE TABLE events (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    feed           text NOT NULL,
    feed_event_id  text NOT NULL,
    game_id        text NOT NULL REFERENCES games (id),
    seq            bigint NOT NULL CHECK (seq > 0),
    kind           text NOT NULL,
    occurred_at    timestamptz NOT NULL,
    received_at    timestamptz NOT NULL DEFAULT now(),
    -- accepted: folded into the game's state; stale: seq not newer than the applied one.
    outcome        text NOT NULL CHECK (outcome IN ('accepted', 'stale')),
    body           jsonb NOT NULL,
    UNIQUE (feed, feed_event_id)
);
CREATE INDEX events_game_seq ON events (game_id, seq);
CREATE INDEX events_received ON events (received_at);

-- The outbox: at most one pending row per channel, holding the newest rendered payload.
-- An event arriving while a row is pending replaces its payload (coalescing) and bumps
-- `version`; a worker finishing a send deletes the row only if version and lease owner are
-- still the ones it claimed, so newer work is never lost.
CREATE TABLE outbox (
    channel_id          bigint PRIMARY KEY REFERENCES channels (id),
    version             bigint NOT NULL DEFAULT 1,
    payload             bytea NOT NULL,
    payload_timestamp   bigint NOT NULL,
    -- The strongest priority any coalesced event asked for, and whether one wanted an alert.
    priority            smallint NOT NULL CHECK (priority IN (5, 10)),
    alerting            boolean NOT NULL DEFAULT false,
    event_ids           bigint[] NOT NULL,
    -- When the oldest event folded into this row was ingested (ingest-to-send latency).
    first_ingested_at   timestamptz NOT NULL,
    coalesced           integer NOT NULL DEFAULT 0 CHECK (coalesced >= 0),
    due_at              timestamptz NOT NULL,
    lease_owner         text,
    lease_expires_at    timestamptz,
    attempts            integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error          text,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CHECK ((lease_owner IS NULL) = (lease_expires_at IS NULL))
);
-- The claim query: due rows, unleased or with an expired lease, oldest first.
CREATE INDEX outbox_due ON outbox (due_at);

-- Append-only log of every send attempt and its answer. Pruned by age.
CREATE TABLE deliveries (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel_id          bigint NOT NULL REFERENCES channels (id),
    app_id              bigint NOT NULL REFERENCES apps (id),
    event_ids           bigint[] NOT NULL,
    outbox_version      bigint NOT NULL,
    requested_priority  smallint NOT NULL CHECK (requested_priority IN (5, 10)),
    priority            smallint NOT NULL CHECK (priority IN (5, 10)),
    downgraded          boolean NOT NULL DEFAULT false,
    coalesced           integer NOT NULL DEFAULT 0,
    attempt             integer NOT NULL CHECK (attempt >= 1),
    -- sent: 2xx; retry: will be retried; failed: terminal; gone: channel not registered;
    -- paused: credentials refused, app paused.
    outcome             text NOT NULL CHECK (outcome IN ('sent', 'retry', 'failed', 'gone', 'paused')),
    status_code         integer,
    reason              text,
    apns_request_id     text,
    apns_unique_id      text,
    apns_latency_ms     double precision,
    ingest_to_send_ms   double precision,
    sent_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_sent_at ON deliveries (sent_at);
CREATE INDEX deliveries_channel ON deliveries (channel_id, sent_at);

-- Priority-10 budget use per channel and hour window, and what it cost.
CREATE TABLE channel_budget (
    channel_id          bigint NOT NULL REFERENCES channels (id),
    window_start        timestamptz NOT NULL,
    high_priority_sent  integer NOT NULL DEFAULT 0 CHECK (high_priority_sent >= 0),
    downgraded          integer NOT NULL DEFAULT 0 CHECK (downgraded >= 0),
    throttled           integer NOT NULL DEFAULT 0 CHECK (throttled >= 0),
    -- The limit in force for this window; lowered after a 429 TooManyRequests.
    budget_limit        integer NOT NULL CHECK (budget_limit >= 0),
    PRIMARY KEY (channel_id, window_start)
);

-- Per-minute statistics roll-ups written by the poller's leader.
CREATE TABLE stats_minute (
    minute              timestamptz NOT NULL,
    app_id              bigint NOT NULL REFERENCES apps (id),
    sent                integer NOT NULL DEFAULT 0,
    failed              integer NOT NULL DEFAULT 0,
    retried             integer NOT NULL DEFAULT 0,
    throttled           integer NOT NULL DEFAULT 0,
    gone                integer NOT NULL DEFAULT 0,
    downgraded          integer NOT NULL DEFAULT 0,
    coalesced           integer NOT NULL DEFAULT 0,
    priority_10         integer NOT NULL DEFAULT 0,
    priority_5          integer NOT NULL DEFAULT 0,
    ingest_p50_ms       double precision,
    ingest_p95_ms       double precision,
    ingest_p99_ms       double precision,
    apns_p50_ms         double precision,
    apns_p95_ms         double precision,
    apns_p99_ms         double precision,
    PRIMARY KEY (minute, app_id)
);

CREATE TABLE stats_minute_reasons (
    minute   timestamptz NOT NULL,
    app_id   bigint NOT NULL REFERENCES apps (id),
    reason   text NOT NULL,
    count    integer NOT NULL CHECK (count > 0),
    PRIMARY KEY (minute, app_id, reason)
);
