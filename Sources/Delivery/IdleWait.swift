/// How long an idle worker sleeps before it looks again, and whether it then claims: it claims
/// only when the outbox says a row is due (or could not tell), so an idle `serve` costs one
/// cheap due-time query per worker per poll interval, not a claim and a query every second.
/// A NOTIFY ends any of these sleeps. Pure.
struct IdleWait: Equatable {
    /// How long to sleep unless woken.
    var timeout: Duration
    /// Whether to claim after the sleep (a row is due by then), or only to look again.
    var claimAfter: Bool

    /// The wait after a look at the outbox found the next row due in `secondsUntilNextDue`
    /// (`nil`: nothing sendable waits; negative: due already). `lookFailed` (the query failed):
    /// sleep the poll interval, then claim, which reports the failure. `poll` bounds every sleep
    /// (the safety net for a lost notification); a row due now is claimed after at least
    /// `floor`, so a row due but held elsewhere (this process's send in flight) does not make
    /// the worker spin.
    static func after(secondsUntilNextDue: Double?, lookFailed: Bool = false, poll: Duration, floor: Duration) -> IdleWait {
        if lookFailed { return IdleWait(timeout: poll, claimAfter: true) }
        guard let seconds = secondsUntilNextDue, seconds.isFinite else { return IdleWait(timeout: poll, claimAfter: false) }
        let untilDue = Duration.milliseconds(Int64(max(0, min(seconds, 86_400)) * 1000))
        if untilDue > poll { return IdleWait(timeout: poll, claimAfter: false) }
        return IdleWait(timeout: max(floor, untilDue), claimAfter: true)
    }
}
