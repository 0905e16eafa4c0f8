-- One budget ledger: every priority-10 send APNs accepted, every send lowered to priority 5 and
-- every 429, one row each, per channel. Sending, the statistics, the dashboard and /metrics all
-- count the same rolling hour from it (ScorecastCore's ChannelBudget decides; the store only
-- appends its entries and reads them back). It replaces the clock-hour `channel_budget` windows
-- and `channel_priority_sends`, and carries a 429's bar on priority 10 that `outbox` held (and
-- lost with its row).
CREATE TABLE budget_ledger (
    channel_id    bigint NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    at            timestamptz NOT NULL,
    kind          text NOT NULL CHECK (kind IN ('priority10', 'downgraded', 'throttled')),
    -- A 429's lowered limit (before recovery) and its Retry-After, capped: throttled rows only.
    limit_after   integer CHECK (limit_after >= 0),
    barred_until  timestamptz,
    CHECK ((kind = 'throttled') = (limit_after IS NOT NULL AND barred_until IS NOT NULL))
);
CREATE INDEX budget_ledger_channel_at ON budget_ledger (channel_id, at);
-- A channel's latest 429, which may be far older than its last hour of sends.
CREATE INDEX budget_ledger_channel_throttles ON budget_ledger (channel_id, at) WHERE kind = 'throttled';
-- The channels active in the last hour, and the prune.
CREATE INDEX budget_ledger_at ON budget_ledger (at);

INSERT INTO budget_ledger (channel_id, at, kind)
SELECT channel_id, sent_at, 'priority10' FROM channel_priority_sends;

-- The last hour's downgrades, so the figures read just after the upgrade carry on.
INSERT INTO budget_ledger (channel_id, at, kind)
SELECT channel_id, sent_at, 'downgraded' FROM deliveries
WHERE downgraded AND outcome = 'sent' AND sent_at > now() - interval '1 hour';

-- Each channel's latest 429 keeps lowering its limit, and its bar holds.
INSERT INTO budget_ledger (channel_id, at, kind, limit_after, barred_until)
SELECT DISTINCT ON (b.channel_id)
       b.channel_id, b.last_throttled_at, 'throttled', COALESCE(b.shrunk_limit, b.budget_limit),
       GREATEST(b.last_throttled_at, COALESCE(o.throttled_until, b.last_throttled_at))
FROM channel_budget b
LEFT JOIN outbox o ON o.channel_id = b.channel_id
WHERE b.last_throttled_at IS NOT NULL
ORDER BY b.channel_id, b.window_start DESC;

DROP TABLE channel_priority_sends;
DROP TABLE channel_budget;
ALTER TABLE outbox DROP COLUMN throttled_until;
