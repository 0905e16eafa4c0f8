-- The budget ledger keeps what spends or bars a channel's budget: accepted priority-10 sends and
-- 429s. A send lowered to priority 5 spends nothing, and its delivery record already says it was
-- downgraded (`deliveries.downgraded`), which is what the statistics count; a channel past its
-- budget downgrades every alert, so those entries grew without bound and every read of the
-- ledger went through them.
DELETE FROM budget_ledger WHERE kind = 'downgraded';
ALTER TABLE budget_ledger DROP CONSTRAINT budget_ledger_kind_check;
ALTER TABLE budget_ledger ADD CONSTRAINT budget_ledger_kind_check CHECK (kind IN ('priority10', 'throttled'));
-- One index by channel, kind and time finds each kind's entries of a window without reading the
-- other's, and a channel's latest 429 by reading it backwards (without its sends of the two days
-- the ledger remembers a 429); it replaces the index by channel and time and the partial one of
-- 429s.
CREATE INDEX budget_ledger_channel_kind_at ON budget_ledger (channel_id, kind, at);
DROP INDEX budget_ledger_channel_at;
DROP INDEX budget_ledger_channel_throttles;
