-- Accepted priority-10 updates on the token path, one row each: every activity (one device's
-- Live Activity, updated through its own push token) has its own hourly priority-10 budget,
-- spent over a rolling hour as APNs counts it, like a channel's (0012). The token path counts an
-- activity's sends of the last hour when it claims, and drops older ones when it records new ones.
CREATE TABLE activity_priority_sends (
    activity_token_id  bigint NOT NULL REFERENCES activity_tokens (id) ON DELETE CASCADE,
    sent_at            timestamptz NOT NULL
);
CREATE INDEX activity_priority_sends_token_sent_at ON activity_priority_sends (activity_token_id, sent_at);
