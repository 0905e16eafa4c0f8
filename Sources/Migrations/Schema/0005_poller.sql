-- scorecast: what the poller and the statistics API need beyond 0001–0004.
--
-- Forward-only, like every file here.

-- Per-minute roll-ups, completed. `failed` counts attempts that ended with outcome `failed`
-- only; `gone` (ChannelNotRegistered) and `paused` (credentials refused) are counted apart, and
-- the three together are the failed attempts of the statistics API. The sample counts say how
-- many latencies each minute's percentiles come from, so that long windows can weigh them.
ALTER TABLE stats_minute
    ADD COLUMN paused          integer NOT NULL DEFAULT 0,
    ADD COLUMN ingest_samples  integer NOT NULL DEFAULT 0,
    ADD COLUMN apns_samples    integer NOT NULL DEFAULT 0;

-- Feed events per minute and ingest outcome. The poller rolls `accepted` and `stale` up from
-- `events`; `duplicate` and `rejected` leave no row in `events`, so ingest adds them here as
-- they happen (`IngestTally`).
CREATE TABLE stats_minute_events (
    minute   timestamptz NOT NULL,
    outcome  text NOT NULL CHECK (outcome IN ('accepted', 'stale', 'duplicate', 'rejected')),
    count    integer NOT NULL CHECK (count >= 0),
    PRIMARY KEY (minute, outcome)
);

-- Outbox rows whose lease expired and that the poller made claimable again, per minute and app
-- (they count as *retried* in the statistics).
CREATE TABLE stats_minute_rescues (
    minute   timestamptz NOT NULL,
    app_id   bigint NOT NULL REFERENCES apps (id),
    count    integer NOT NULL CHECK (count > 0),
    PRIMARY KEY (minute, app_id)
);

-- How far the roll-ups are final: minutes before `settled_before` are read from the stats_minute
-- tables, later ones live from `deliveries` and `events`. One row, written by the poller's leader.
CREATE TABLE stats_rollup_state (
    id              boolean PRIMARY KEY DEFAULT true CHECK (id),
    settled_before  timestamptz NOT NULL
);

-- The rescue finds expired leases without reading every pending row.
CREATE INDEX outbox_lease_expires ON outbox (lease_expires_at) WHERE lease_owner IS NOT NULL;
-- Pruning old budget windows, and reading the current window of every channel.
CREATE INDEX channel_budget_window ON channel_budget (window_start);
