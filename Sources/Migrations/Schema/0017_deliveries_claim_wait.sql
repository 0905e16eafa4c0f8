-- How long each send waited before a worker took it: from the first ingest of its oldest event
-- (the head alert's, for an alert) until a worker claimed the row and planned the send.
-- ingest_to_send_ms is that wait plus the send itself, so the two split a goal's latency into
-- "waiting for a worker" and "sending" (where the fan's milliseconds go). Written in
-- the same row insert as the rest of the delivery: no write is added.
ALTER TABLE deliveries ADD COLUMN ingest_to_claim_ms double precision;
