-- Accepted priority-10 sends, one row each: the priority-10 budget is spent over a rolling hour,
-- as APNs counts it, not per clock hour (a match crossing the hour must not spend two budgets).
-- The claim reads a channel's sends of the last hour beside its `channel_budget` row; the
-- prune duty removes older ones.
CREATE TABLE channel_priority_sends (
    channel_id  bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    sent_at     timestamptz NOT NULL
);
CREATE INDEX channel_priority_sends_channel_sent_at ON channel_priority_sends (channel_id, sent_at);
