@testable import Postgres
import Testing

@Suite("Supervision of the embedded server: restart at once, back off, unhealthy past the limit")
struct ServerSupervisionTests {
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    @Test("a running server needs nothing; a gone one is restarted at once")
    func restartAtOnce() {
        var supervision = ServerSupervision(recoveryLimit: .seconds(60))
        #expect(supervision.observe(running: true, at: at(0)) == .nothing)
        #expect(supervision.observe(running: false, at: at(1)) == .restart(attempt: 1))
        #expect(supervision.goneSince == at(1))
        // While the attempt runs, no other is due.
        #expect(supervision.observe(running: false, at: at(1.5)) == .nothing)
    }

    @Test("failed attempts back off 0.5, 1, 2 … up to 10 s; success ends the outage")
    func backoff() {
        var supervision = ServerSupervision(recoveryLimit: .seconds(60))
        #expect(supervision.observe(running: false, at: at(0)) == .restart(attempt: 1))
        supervision.restartFailed(at: at(0))
        #expect(supervision.observe(running: false, at: at(0.4)) == .nothing)
        #expect(supervision.observe(running: false, at: at(0.5)) == .restart(attempt: 2))
        supervision.restartFailed(at: at(0.5))
        #expect(supervision.observe(running: false, at: at(1.4)) == .nothing)
        #expect(supervision.observe(running: false, at: at(1.5)) == .restart(attempt: 3))
        #expect([1, 2, 3, 4, 5, 6, 7, 50].map { supervision.pause(after: $0) }
            == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10), .seconds(10)])
        #expect(supervision.observe(running: true, at: at(2)) == .nothing)
        #expect(supervision.goneSince == nil && supervision.attempts == 0)
        // The next outage starts over at attempt 1, at once.
        #expect(supervision.observe(running: false, at: at(100)) == .restart(attempt: 1))
    }

    @Test("healthy while running or gone for less than the limit; unhealthy after; healthy again once back")
    func healthAgainstTheLimit() {
        var supervision = ServerSupervision(recoveryLimit: .seconds(30))
        #expect(supervision.isHealthy(at: at(0)))
        _ = supervision.observe(running: false, at: at(10))
        supervision.restartFailed(at: at(10))
        #expect(supervision.isHealthy(at: at(39.9)))
        #expect(!supervision.isHealthy(at: at(40)))
        _ = supervision.observe(running: true, at: at(41))
        #expect(supervision.isHealthy(at: at(41)))
    }

    @Test("the stop report: the last errors since the server was ready, and the room it has and needs on a full disk")
    func stopReport() {
        let log = """
            2026-12-07 04:00:00 UTC [1] FATAL:  an old failure, recovered from
            2026-12-07 04:00:01 UTC [1] LOG:  database system is ready to accept connections
            2026-12-07 04:01:00 UTC [7] PANIC:  could not write to file "pg_wal/xlogtemp.7": No space left on device
            2026-12-07 04:01:00 UTC [1] LOG:  all server processes terminated; reinitializing
            2026-12-07 04:01:01 UTC [9] FATAL:  could not write to file "pg_wal/xlogtemp.9": No space left on device

            """
        let full = EmbeddedPostgres.stopReport(logTail: log, freeBytes: 3 << 20, dataPath: "/state/postgres/data")
        #expect(full == #"2026-12-07 04:01:00 UTC [7] PANIC:  could not write to file "pg_wal/xlogtemp.7": No space left on device | "#
            + #"2026-12-07 04:01:01 UTC [9] FATAL:  could not write to file "pg_wal/xlogtemp.9": No space left on device; "#
            + "disk full: /state/postgres/data has 3.0 MiB free, the server needs at least 64.0 MiB to recover: free space or grow the disk")
        let freed = EmbeddedPostgres.stopReport(logTail: log, freeBytes: 1 << 30, dataPath: "/d")
        #expect(freed.hasSuffix("; it ran out of disk space (1024.0 MiB free now)"))
        let killed = EmbeddedPostgres.stopReport(
            logTail: "x FATAL: old\ny LOG:  database system is ready to accept connections\n"
                + "z FATAL:  terminating connection due to unexpected postmaster exit\n", freeBytes: 1 << 30, dataPath: "/d")
        #expect(killed == "the postmaster is gone and its log says nothing (killed?)")
    }
}
