-- One id, one event. `digest` is the SHA-256 of what each event says (its envelope without
-- `occurredAt` and `build`), computed by the sender; NULL for rows of an earlier release, whose
-- digest is then taken from `body`. A delivered event stays as a row with `sent_until` set (and its
-- body emptied, unless it has no digest) until that time, so that an event sent again under its id
-- is recognised: the same digest is the same event, another digest is refused. Such rows are
-- neither pending nor dead, and the dispatcher deletes them once `sent_until` has passed.
ALTER TABLE host_outbox ADD COLUMN digest bytea;
ALTER TABLE host_outbox ADD COLUMN sent_until bigint;
DROP INDEX host_outbox_due;
CREATE INDEX host_outbox_due ON host_outbox (due, id) WHERE NOT dead AND sent_until IS NULL;
CREATE INDEX host_outbox_sent ON host_outbox (sent_until) WHERE sent_until IS NOT NULL;
