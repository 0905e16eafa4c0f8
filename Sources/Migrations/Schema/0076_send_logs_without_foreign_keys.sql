-- `deliveries` and `budget_ledger` are logs the worker's completion appends to, one row per send,
-- for the channel and app of the outbox row it settles in the same statement (whose own foreign
-- key checks the channel), and no channel or app row is ever deleted (a channel is marked
-- `deleted` or `gone`). Their foreign keys checked nothing more, but each check locked the
-- channel's row (and the app's) on every append: a lock record per send in the WAL. Readers
-- join them to `channels` and `apps` as before.
ALTER TABLE deliveries
    DROP CONSTRAINT deliveries_channel_id_fkey,
    DROP CONSTRAINT deliveries_app_id_fkey;
ALTER TABLE budget_ledger DROP CONSTRAINT budget_ledger_channel_id_fkey;
