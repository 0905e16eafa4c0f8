-- Sending reads a channel's priority-10 sends of the last hour and its 429s, never its
-- downgrades: a channel past its budget adds a downgrade for every alert, without bound, while
-- its priority-10 sends are bounded by the budget. One index by channel, kind and time finds
-- each kind's entries of a window without reading the others, and a channel's latest 429 by
-- reading it backwards; it replaces the index by channel and time and the partial one of 429s.
CREATE INDEX budget_ledger_channel_kind_at ON budget_ledger (channel_id, kind, at);
DROP INDEX budget_ledger_channel_at;
DROP INDEX budget_ledger_channel_throttles;
