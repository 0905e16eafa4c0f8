-- What a channel's phones show now: the body of its last send APNs accepted, and of its last
-- accepted send that carried an alert (a routine update after a goal replaces the state, not
-- the memory of the alert). Written by the worker's completion, read by the dashboard's game
-- view. NULL: nothing accepted yet.
ALTER TABLE channels
    ADD COLUMN shown_payload jsonb,
    ADD COLUMN shown_at timestamptz,
    ADD COLUMN alert_payload jsonb,
    ADD COLUMN alert_at timestamptz;
