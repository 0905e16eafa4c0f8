-- The outbox is read in one order: the claim's, alerting rows first, each by due time
-- (`outbox_claim_order`). The workers' look for the next due row now walks that index too (its
-- alerting rows, then the rest), so the index by due time alone served nothing else of weight
-- and cost an entry for every row ingest inserts and every change of a row's due time.
DROP INDEX outbox_due;
