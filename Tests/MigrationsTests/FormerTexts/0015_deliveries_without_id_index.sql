-- deliveries is an append-only log written once per send attempt (the hot path of delivery)
-- and read by time (deliveries_sent_at: statistics, pruning, the newest deliveries) and by
-- channel (deliveries_channel: a game's deliveries, budget figures). Nothing looks a row up by
-- id and no table refers to it, so the primary key's index only cost an index insert per
-- send (issue 18). The id column stays: still generated, unique as generated, and the tie-break
-- of "newest first".
ALTER TABLE deliveries DROP CONSTRAINT deliveries_pkey;
