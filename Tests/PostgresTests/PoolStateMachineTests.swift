@testable import Postgres
import Testing

@Suite struct PoolStateMachineTests {
    @Test func opensLazilyAndReusesIdleConnections() {
        var machine = PoolStateMachine(maxConnections: 2)
        #expect(machine.connectionCount == 0)
        #expect(machine.lease(1) == [.connect(1)])
        #expect(machine.connected(1) == [.lease(1, to: 1)])
        #expect(machine.release(1, reusable: true) == [])
        #expect(machine.idle == [1])
        #expect(machine.lease(2) == [.lease(1, to: 2)])
        #expect(machine.connectionCount == 1)
    }

    @Test func neverOpensMoreThanTheLimitAndServesWaitersInOrder() {
        var machine = PoolStateMachine(maxConnections: 2)
        #expect(machine.lease(1) == [.connect(1)])
        #expect(machine.lease(2) == [.connect(2)])
        #expect(machine.lease(3) == [])
        #expect(machine.lease(4) == [])
        #expect(machine.connectionCount == 2)
        #expect(machine.connected(2) == [.lease(2, to: 1)])
        #expect(machine.connected(1) == [.lease(1, to: 2)])
        #expect(machine.release(1, reusable: true) == [.lease(1, to: 3)])
        #expect(machine.release(2, reusable: true) == [.lease(2, to: 4)])
        #expect(machine.waiters.isEmpty)
    }

    @Test func brokenConnectionsAreClosedAndReplacedForWaiters() {
        var machine = PoolStateMachine(maxConnections: 1)
        _ = machine.lease(1)
        _ = machine.connected(1)
        #expect(machine.lease(2) == [])
        #expect(machine.release(1, reusable: false) == [.close(1), .connect(2)])
        #expect(machine.connected(2) == [.lease(2, to: 2)])
        #expect(machine.release(2, reusable: false) == [.close(2)])
        #expect(machine.connectionCount == 0)
    }

    @Test func aFailedConnectFailsTheOldestWaiterAndRetriesForTheRest() {
        var machine = PoolStateMachine(maxConnections: 1)
        #expect(machine.lease(1) == [.connect(1)])
        #expect(machine.lease(2) == [])
        let error = PostgresError(.connectionFailed, "refused")
        #expect(machine.connectFailed(1, error) == [.fail(1, .connectFailed(error)), .connect(2)])
        #expect(machine.connectFailed(2, error) == [.fail(2, .connectFailed(error))])
        #expect(machine.connectionCount == 0)
    }

    @Test func timeoutsAndCancellationsRemoveOnlyWaitingCallers() {
        var machine = PoolStateMachine(maxConnections: 1)
        _ = machine.lease(1)
        _ = machine.connected(1)
        _ = machine.lease(2)
        _ = machine.lease(3)
        #expect(machine.timedOut(2) == [.fail(2, .timeout)])
        #expect(machine.timedOut(2) == [])
        #expect(machine.cancelled(1) == [])
        #expect(machine.cancelled(3) == [.fail(3, .cancelled)])
        #expect(machine.release(1, reusable: true) == [])
        #expect(machine.idle == [1])
    }

    @Test func closingFailsWaitersClosesIdleAndDrainsAfterLeasedReturn() {
        var machine = PoolStateMachine(maxConnections: 2)
        _ = machine.lease(1)
        _ = machine.lease(2)
        _ = machine.connected(1)
        _ = machine.connected(2)
        #expect(machine.release(2, reusable: true) == [])
        #expect(machine.lease(3) == [.lease(2, to: 3)])
        #expect(machine.lease(4) == [])
        #expect(machine.close() == [.fail(4, .poolClosed)])
        #expect(machine.lease(5) == [.fail(5, .poolClosed)])
        #expect(machine.release(1, reusable: true) == [.close(1)])
        #expect(machine.release(2, reusable: true) == [.close(2), .drained])
        #expect(machine.close() == [.drained])
    }

    @Test func aConnectionOpenedAfterCloseIsClosed() {
        var machine = PoolStateMachine(maxConnections: 1)
        _ = machine.lease(1)
        #expect(machine.close() == [.fail(1, .poolClosed)])
        #expect(machine.connected(1) == [.close(1), .drained])
    }

    @Test func leaseIsMostRecentlyUsedFirst() {
        var machine = PoolStateMachine(maxConnections: 3)
        for waiter in 1...3 { _ = machine.lease(waiter) }
        for id in 1...3 { _ = machine.connected(id) }
        for id in [2, 1, 3] { _ = machine.release(id, reusable: true) }
        #expect(machine.lease(9) == [.lease(3, to: 9)])
    }
}
