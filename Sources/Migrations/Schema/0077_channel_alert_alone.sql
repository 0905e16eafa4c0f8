-- A channel's last alert is kept alone, as `{"aps": {"alert": …}}`, no longer inside the whole
-- body that carried it: an alerting send wrote that body twice (as `shown_payload` too, both
-- logged in the WAL), and the game view reads only the alert from it. Rows kept before take the
-- same form.
UPDATE channels
SET alert_payload = jsonb_build_object('aps', jsonb_build_object('alert', alert_payload::jsonb -> 'aps' -> 'alert'))::text
WHERE alert_payload IS NOT NULL AND alert_payload::jsonb -> 'aps' ? 'alert';
