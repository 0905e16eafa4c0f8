-- What a channel's last accepted send showed: a fingerprint of its event and content-state
-- (ShownState). A worker does not send a state without an alert that shows exactly this again
-- (the decision is the worker's; this column only remembers). NULL: nothing accepted yet, or a
-- channel recreated at APNs (its phones show nothing of ours).
ALTER TABLE channels ADD COLUMN last_shown bigint;
