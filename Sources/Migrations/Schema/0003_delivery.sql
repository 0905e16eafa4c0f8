-- scorecast: what the worker pool needs beyond the initial schema.
--
-- Forward-only, like every file here.

-- A retry's backoff: no attempt before this time. Kept apart from `due_at` (which ingest sets
-- from shaping and may move earlier when it coalesces an alerting update), so that a channel in
-- trouble keeps backing off even while new events replace its payload. NULL: no backoff.
ALTER TABLE outbox ADD COLUMN not_before timestamptz;

-- When APNs last accepted a send to the channel: the reference for spacing routine updates.
ALTER TABLE channels ADD COLUMN last_sent_at timestamptz;

-- The budget state machine's memory across windows (ScorecastCore's ChannelBudget): the limit
-- set by the last 429 before it recovers (NULL: at the app's profile), and when that 429 came.
-- `budget_limit` keeps meaning "the limit in force for this window".
ALTER TABLE channel_budget
    ADD COLUMN shrunk_limit integer CHECK (shrunk_limit IS NULL OR shrunk_limit >= 0),
    ADD COLUMN last_throttled_at timestamptz;
