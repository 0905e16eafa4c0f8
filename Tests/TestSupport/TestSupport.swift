// Test helpers: a Postgres for every test, keys and processes.
