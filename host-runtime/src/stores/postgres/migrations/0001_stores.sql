-- The deduplication keys of host event deliveries. `id` is the SHA-256 of `key` (a key may be
-- longer than an index entry allows). An in-flight claim names its attempt in `owner` and lasts
-- until `expires` (its lease); a recorded key has `done` set, no owner, and is forgotten at
-- `expires` (the end of the deduplication window). A row past `expires` counts as absent.
CREATE TABLE host_dedupe (
    id bytea PRIMARY KEY,
    key text NOT NULL,
    owner text,
    done boolean NOT NULL DEFAULT false,
    expires timestamptz NOT NULL
);
CREATE INDEX host_dedupe_expires ON host_dedupe (expires);

-- The vendor's own events until the host takes them. `due` and `accepted` are Unix milliseconds
-- as the sender gave them; a claimed event's `due` is the end of its claim's lease and `owner` the
-- dispatcher holding it. Dead letters have `dead` set; `due` is then when they were given up on.
CREATE TABLE host_outbox (
    id text PRIMARY KEY,
    body bytea NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    due bigint NOT NULL,
    accepted bigint NOT NULL,
    last_error text,
    owner text,
    dead boolean NOT NULL DEFAULT false
);
CREATE INDEX host_outbox_due ON host_outbox (due, id) WHERE NOT dead;
CREATE INDEX host_outbox_dead ON host_outbox (due, id) WHERE dead;

-- Wakes the dispatchers listening on `host_outbox` when events are added or revived: once per
-- statement, and for a statement inside a transaction only when that commits.
CREATE FUNCTION host_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('host_outbox', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER host_outbox_added AFTER INSERT OR UPDATE OF dead ON host_outbox
    FOR EACH STATEMENT EXECUTE FUNCTION host_outbox_notify();
