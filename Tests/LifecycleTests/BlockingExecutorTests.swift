import Foundation
import Lifecycle
import Synchronization
import Testing

/// A gate blocking calls wait at (a real blocking wait, as a C call would do), opened by the test.
private final class Gate: Sendable {
    private let condition = NSCondition()
    private let state = Mutex((open: false, waiting: 0, maximumInside: 0, inside: 0))

    /// Blocks the calling thread until `open()`; records how many were inside at once.
    func pass() {
        state.withLock {
            $0.waiting += 1
            $0.inside += 1
            $0.maximumInside = max($0.maximumInside, $0.inside)
        }
        condition.lock()
        while !state.withLock({ $0.open }) { condition.wait() }
        condition.unlock()
        state.withLock { $0.inside -= 1 }
    }

    func open() {
        condition.lock()
        state.withLock { $0.open = true }
        condition.broadcast()
        condition.unlock()
    }

    var waiting: Int { state.withLock { $0.waiting } }
    var maximumInside: Int { state.withLock { $0.maximumInside } }
}

@Suite(.timeLimit(.minutes(1)))
struct BlockingExecutorTests {
    @Test func resultsAndErrorsComeBack() async throws {
        let executor = BlockingExecutor(maximumThreads: 2)
        #expect(try await executor.run { 6 * 7 } == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await executor.run { () throws -> Int in throw Refused() } }
    }

    @Test func noMoreThanTheBoundRunAtOnce() async throws {
        let executor = BlockingExecutor(maximumThreads: 2)
        let gate = Gate()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<5 {
                group.addTask { try await executor.run { gate.pass(); return index } }
            }
            // Two calls reach the gate; the other three wait their turn in the queue.
            while gate.waiting < 2 { try await Task.sleep(for: .milliseconds(2)) }
            #expect(executor.runningCount == 2)
            gate.open()
            var results: [Int] = []
            for try await result in group { results.append(result) }
            #expect(results.sorted() == [0, 1, 2, 3, 4])
        }
        #expect(gate.maximumInside == 2)
    }

    @Test func aCancelledCallerIsAnsweredAtOnceAndQueuedWorkNeverRuns() async throws {
        let executor = BlockingExecutor(maximumThreads: 1)
        let gate = Gate()
        let ran = Mutex(false)
        let blocking = Task { try await executor.run { gate.pass() } }
        while gate.waiting < 1 { try await Task.sleep(for: .milliseconds(2)) }
        // The only thread is busy: this call is queued, then its caller gives up.
        let queued = Task { try await executor.run { ran.withLock { $0 = true } } }
        queued.cancel()
        await #expect(throws: CancellationError.self) { try await queued.value }
        // The running call cannot be interrupted, but its caller is answered without waiting.
        blocking.cancel()
        await #expect(throws: CancellationError.self) { try await blocking.value }
        gate.open()
        // The executor is free again and the cancelled queued work was dropped, not run.
        #expect(try await executor.run { 1 } == 1)
        #expect(!ran.withLock { $0 })
    }
}
