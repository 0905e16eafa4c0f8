-- Kick-off planning in chunks, overlapped with sending, and the token path's final reserve and
-- downgrade count (issue 15).
--
-- A kick-off no longer plans its whole audience before the first send: the fan-out takes the
-- next chunk of following devices (in device id order, after `plan_cursor`), records their starts
-- already leased to itself and sends them, while earlier chunks are still on their way.
-- `planned_at` is set once the last chunk is taken; a process that dies between chunks leaves the
-- cursor where the next one goes on. Kick-offs recorded before this migration were planned whole.
ALTER TABLE kickoffs ADD COLUMN plan_cursor bigint NOT NULL DEFAULT 0;
ALTER TABLE kickoffs ADD COLUMN planned_at timestamptz;
UPDATE kickoffs SET planned_at = created_at;

-- A chunk reads each target's followers in device order from the cursor: one range scan per
-- target (game, league, each team) on this index; `follows_target` (kind, value) is its prefix.
CREATE INDEX follows_target_device ON follows (kind, value, device_id);
DROP INDEX follows_target;

-- The final whistle's update may spend the last priority-10 sends of an activity's budget
-- (SCORECAST_BUDGET_FINAL_RESERVE, as on channels).
ALTER TABLE activity_outbox ADD COLUMN final boolean NOT NULL DEFAULT false;

-- Updates that wanted priority 10 and went at 5 because the activity's budget was spent.
ALTER TABLE activity_tokens ADD COLUMN downgraded integer NOT NULL DEFAULT 0 CHECK (downgraded >= 0);
