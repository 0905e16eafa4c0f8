-- scorecast: alerting rows are claimed first; the outbox and channels stay compact under churn.
--
-- "Alerting updates go at once" (design.md, shaping): under load many routine rows are due at
-- the same moment, and a claim in due order alone made a goal wait behind all of them. The
-- claim now takes due alerting rows first, then the rest, each in due order.
CREATE INDEX outbox_claim_order ON outbox (alerting DESC, due_at);

-- Under load every outbox row is claimed, given back or deleted several times a second, and
-- every send updates its channel. Each such update leaves a dead row version; when an indexed
-- column changes it also leaves an index entry to skip, and the claim's index scan, the
-- ingest's lookups and the workers' wake-up query slow down as the table bloats.

-- The lease rescue (the poller, every few seconds) reads the outbox, which holds at most one
-- row per channel; it does not need an index. Without one, a claim changes no indexed column,
-- so Postgres can update the row in place on its page (a HOT update: no index entries) when
-- the page has room, which the lower fill factor leaves.
DROP INDEX outbox_lease_expires;
ALTER TABLE outbox SET (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 1000,
    autovacuum_vacuum_cost_delay = 0
);

-- A send updates `last_timestamp` and `last_sent_at`, neither indexed: room on the page keeps
-- those updates HOT too.
ALTER TABLE channels SET (
    fillfactor = 70,
    autovacuum_vacuum_scale_factor = 0.05,
    autovacuum_vacuum_cost_delay = 0
);

-- Ingest reads a channel's last successful send from `channels.last_sent_at` (kept by the
-- workers since 0003) instead of probing `deliveries`; the partial index that served the
-- probe only cost an insert per send. `deliveries_channel` still serves per-channel reads.
DROP INDEX deliveries_channel_sent;
