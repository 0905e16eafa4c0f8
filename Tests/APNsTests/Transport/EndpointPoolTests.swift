import Testing
@testable import APNs

/// The pool's decisions without a socket: warm-up, stream limits, when a second connection
/// opens, GOAWAY, failed opens.
@Suite("endpoint pool")
struct EndpointPoolTests {
    private let start = ContinuousClock.now

    /// A pool with connection 1 established, SETTINGS read (limit `peerLimit`) and one answer.
    private func readyPool(maxConnections: Int = 2, maxStreams: Int = 100, peerLimit: Int? = 1000) -> EndpointPool {
        var pool = EndpointPool(maxConnections: maxConnections, maxStreams: maxStreams)
        pool.opening(1)
        pool.established(1)
        pool.settingsReceived(1, peerLimit: peerLimit)
        pool.streamStarted(1)
        pool.streamEnded(1, answered: true)
        return pool
    }

    @Test("nothing open: open one; while it opens and warms up, requests wait for it, one stream at a time")
    func warmUp() {
        var pool = EndpointPool(maxConnections: 2, maxStreams: 100)
        #expect(pool.choose(now: start) == .open)
        pool.opening(1)
        #expect(pool.choose(now: start) == .wait)
        pool.established(1)
        // Before SETTINGS and a first answer the connection carries one stream.
        #expect(pool.choose(now: start) == .use(1))
        pool.streamStarted(1)
        #expect(pool.choose(now: start) == .wait)
        pool.settingsReceived(1, peerLimit: 50)
        #expect(pool.choose(now: start) == .wait)
        pool.streamEnded(1, answered: true)
        #expect(pool.slot(1)?.phase == .ready)
        #expect(pool.freeStreams == 50)
    }

    @Test("an answer alone does not end the warm-up: the server's SETTINGS must have been read")
    func warmUpNeedsSettings() {
        var pool = EndpointPool(maxConnections: 1, maxStreams: 100)
        pool.opening(1)
        pool.established(1)
        pool.streamStarted(1)
        pool.streamEnded(1, answered: true)
        #expect(pool.slot(1)?.phase == .warmingUp)
        #expect(pool.freeStreams == 1)
        // A stream that ended without an answer does not count either.
        var other = EndpointPool(maxConnections: 1, maxStreams: 100)
        other.opening(7)
        other.established(7)
        other.settingsReceived(7, peerLimit: 10)
        other.streamStarted(7)
        other.streamEnded(7, answered: false)
        #expect(other.slot(7)?.phase == .warmingUp)
    }

    @Test("the lower of our limit and the server's SETTINGS limit applies, and follows new SETTINGS")
    func streamLimits() {
        var pool = readyPool(maxStreams: 100, peerLimit: 4)
        #expect(pool.freeStreams == 4)
        pool = readyPool(maxStreams: 3, peerLimit: 1000)
        #expect(pool.freeStreams == 3)
        pool = readyPool(maxStreams: 100, peerLimit: nil)
        #expect(pool.freeStreams == 100)
        pool.settingsReceived(1, peerLimit: 8)
        #expect(pool.freeStreams == 8)
    }

    @Test("a second connection opens only when the first is full, and never more than the maximum")
    func secondConnectionOnlyWhenFull() {
        var pool = readyPool(maxConnections: 2, maxStreams: 2)
        #expect(pool.choose(now: start) == .use(1))
        pool.streamStarted(1)
        #expect(pool.choose(now: start) == .use(1))
        pool.streamStarted(1)
        #expect(pool.choose(now: start) == .open)
        pool.opening(2)
        #expect(pool.choose(now: start) == .wait)
        pool.established(2)
        pool.settingsReceived(2, peerLimit: 100)
        #expect(pool.choose(now: start) == .use(2))
        pool.streamStarted(2)
        pool.streamEnded(2, answered: true)
        pool.streamStarted(2)
        pool.streamStarted(2)
        // Both full, two open: the maximum.
        #expect(pool.choose(now: start) == .wait)
        // A stream ends on the first: the oldest connection with room is filled first.
        pool.streamEnded(1, answered: true)
        pool.streamEnded(2, answered: true)
        #expect(pool.choose(now: start) == .use(1))
    }

    @Test("GOAWAY: the connection takes nothing new and does not count against the maximum")
    func draining() {
        var pool = readyPool(maxConnections: 1)
        pool.streamStarted(1)
        pool.draining(1)
        #expect(pool.freeStreams == 0)
        #expect(pool.choose(now: start) == .open)
        pool.opening(2)
        #expect(pool.choose(now: start) == .wait)
        pool.closed(1)
        #expect(pool.slots.map(\.id) == [2])
    }

    @Test("a failed open: retried at once when nothing serves, after a pause when another connection does")
    func failedOpens() {
        var pool = EndpointPool(maxConnections: 2, maxStreams: 1, reopenDelay: .milliseconds(250))
        pool.opening(1)
        pool.openFailed(1, now: start)
        #expect(pool.isEmpty)
        #expect(pool.choose(now: start) == .open)

        var serving = readyPool(maxConnections: 2, maxStreams: 1)
        serving.streamStarted(1)
        #expect(serving.choose(now: start) == .open)
        serving.opening(2)
        serving.openFailed(2, now: start)
        #expect(serving.choose(now: start + .milliseconds(100)) == .wait)
        #expect(serving.choose(now: start + .milliseconds(300)) == .open)
        // A success clears the pause.
        serving.opening(3)
        serving.established(3)
        #expect(serving.choose(now: start) == .use(3))
    }

    @Test("counts never go below zero and unknown connections are ignored")
    func robustCounting() {
        var pool = readyPool()
        pool.streamEnded(1, answered: false)
        pool.streamEnded(1, answered: false)
        #expect(pool.slot(1)?.active == 0)
        pool.streamStarted(99)
        pool.draining(99)
        #expect(pool.slots.count == 1)
    }
}
