-- Ingest writes a channel's outbox row in the transaction that read the channel, active, from
-- its bindings, and no channel row is ever deleted (a channel is marked `deleted` or `gone`, and
-- the mark deletes its row in the queue). The foreign key checked nothing more, but each check
-- locked the channel's row on every insert: a lock record per broadcast in the WAL. The claim
-- takes rows of sendable channels only, as before.
ALTER TABLE outbox DROP CONSTRAINT outbox_channel_id_fkey;
