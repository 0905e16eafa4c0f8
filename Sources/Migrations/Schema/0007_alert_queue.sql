-- scorecast: coalescing merges state, never announcements.
--
-- Forward-only, like every file here.

-- The announcements a channel still owes, oldest first, beside its single newest state
-- (`payload`): `[{"key": "<events.id>", "alert": {...}, "at": <UNIX seconds queued>}]`.
-- Ingest appends an alerting event's alert here instead of replacing the pending one; each
-- send carries the newest state and the head of the queue; the send's completion (fenced on
-- channel, version and lease owner) removes that alert by its key. The row is deleted only
-- when its state was sent and no alert is left. `alerting` stays "an alert waits" (the claim
-- orders by it).
ALTER TABLE outbox ADD COLUMN alerts jsonb NOT NULL DEFAULT '[]'::jsonb
    CHECK (jsonb_typeof(alerts) = 'array');

-- Until when APNs asked (429 with Retry-After, capped by SCORECAST_RETRY_AFTER_MAX_SECONDS)
-- not to be sent priority-10 updates for the channel. Apart from `not_before` (the backoff of
-- one attempt, which a newer update resets): a newer update does not undo APNs' request.
ALTER TABLE outbox ADD COLUMN throttled_until timestamptz;
