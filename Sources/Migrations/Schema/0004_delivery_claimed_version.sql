-- scorecast: which version of an outbox row a worker is sending.
--
-- Forward-only, like every file here (0003 is applied in the field: this is a new file).

-- Set by the claim to the row's version, cleared when the lease is given back. While
-- `version = claimed_version` the row's content is what is in flight: an update arriving then
-- must not merge into it (its alert is already on its way). Once ingest has replaced the
-- content (`version > claimed_version`), the row is pending again and later updates merge
-- into it as into any pending row, keeping the strongest priority and the alert.
ALTER TABLE outbox ADD COLUMN claimed_version bigint;
