/// When an ended Live Activity leaves the Lock Screen (`aps.dismissal-date`): the app's
/// dismissal delay after the `end` is sent. Counted from the send, not from the final whistle
/// or its arrival, so an `end` held back by an APNs outage or a retry still stays up for the
/// whole delay, where a date already past would remove it at once (apns.md §4).
public enum DismissalDate {
    /// The `dismissal-date` (UNIX seconds) of an `end` sent at `sentAt` (UNIX seconds) by an app
    /// whose dismissal delay is `delay` seconds.
    public static func of(endSentAt sentAt: Int, delay: Int) -> Int {
        sentAt + delay
    }
}
