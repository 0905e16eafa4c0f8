-- What a channel's phones show is kept as the text of the body APNs accepted, not as jsonb:
-- every accepted send rewrites it, and jsonb's binary form of a Live Activity body is about a
-- quarter larger than its text (every byte of it logged again in the WAL per send), and was
-- parsed on every write. Only the dashboard's game view reads it, and it parses the text itself.
ALTER TABLE channels
    ALTER COLUMN shown_payload TYPE text USING shown_payload::text,
    ALTER COLUMN alert_payload TYPE text USING alert_payload::text;
