-- Feed signing secrets sealed with the operator's key (AES-256-GCM, SCORECAST_SECRETS_KEY or
-- SCORECAST_SECRETS_KEY_FILE): `serve` seals the ones still in clear at start, and re-seals
-- those sealed with a previous key. A row holds its secret in one form at most.
ALTER TABLE api_keys ADD COLUMN hmac_secret_sealed bytea;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_one_signing_secret CHECK (hmac_secret IS NULL OR hmac_secret_sealed IS NULL);
