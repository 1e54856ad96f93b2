-- No NOTIFY in the commit of a handler's transaction. PostgreSQL lets one transaction that notifies
-- commit at a time, so a trigger notifying on every insert made the handlers' commits wait for one
-- another. The instance that added an event wakes its own dispatcher once the event is committed;
-- every instance also looks at the table at least once a second, and a dead letter brought back
-- through the SDK notifies the listeners from the statement that revives it.
DROP TRIGGER IF EXISTS host_outbox_added ON host_outbox;
DROP FUNCTION IF EXISTS host_outbox_notify();
