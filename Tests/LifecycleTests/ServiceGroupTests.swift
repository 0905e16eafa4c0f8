import Foundation
import Lifecycle
import ScorecastLogging
import Synchronization
import Testing

/// Records the order in which services start and stop.
private final class Journal: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

private struct RecordingService: Service {
    let name: String
    let journal: Journal
    var failAfter: Duration? = nil

    func run(until shutdown: ShutdownSignal) async throws {
        journal.add("start \(name)")
        if let failAfter {
            try await Task.sleep(for: failAfter)
            journal.add("fail \(name)")
            throw CancellationError()
        }
        await shutdown.wait()
        journal.add("stop \(name)")
    }
}

// A service group that never stops would otherwise hold the suite: the limit only bounds a hang.
@Suite(.timeLimit(.minutes(1))) struct ServiceGroupTests {
    let logger = Logger(label: "test", level: .critical, sink: MemorySink())

    @Test func signalStopsServicesInReverseOrder() async throws {
        let journal = Journal()
        let group = ServiceGroup(
            services: ["db", "http", "workers"].map { RecordingService(name: $0, journal: journal) },
            signals: [SIGUSR1], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            while journal.all.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
            kill(getpid(), SIGUSR1)
            try await tasks.waitForAll()
        }
        let stops = journal.all.filter { $0.hasPrefix("stop") }
        #expect(stops == ["stop workers", "stop http", "stop db"])
    }

    @Test func aFailingServiceStopsTheOthersAndIsRethrown() async throws {
        let journal = Journal()
        let group = ServiceGroup(
            services: [
                RecordingService(name: "db", journal: journal),
                RecordingService(name: "broken", journal: journal, failAfter: .milliseconds(20)),
            ],
            signals: [SIGUSR2], logger: logger)
        await #expect(throws: CancellationError.self) { try await group.run() }
        #expect(journal.all.contains("stop db"))
    }

    /// A service that ignores its shutdown signal and only stops when cancelled.
    private struct StubbornService: Service {
        let name = "stubborn"
        let journal: Journal

        func run(until shutdown: ShutdownSignal) async throws {
            journal.add("start stubborn")
            do {
                // Far longer than any test: only cancellation ends it.
                try await Task.sleep(for: .seconds(3_600))
            } catch {
                journal.add("cancelled stubborn")
                throw error
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func gracePeriodEscalatesToCancellation() async throws {
        let journal = Journal()
        let group = ServiceGroup(
            services: [RecordingService(name: "db", journal: journal), StubbornService(journal: journal)],
            signals: [], gracePeriod: .milliseconds(5), logger: logger)
        let stop = ShutdownSignal()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run(until: stop) }
            while journal.all.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
            stop.trigger()
            // Returns without an error: the CancellationError of an escalated stop is expected.
            try await tasks.waitForAll()
        }
        // Escalation cancels every service still running, so both end; in which order is the
        // scheduler's business.
        #expect(Set(journal.all.filter { !$0.hasPrefix("start") }) == ["cancelled stubborn", "stop db"])
    }

    @Test(.timeLimit(.minutes(1)))
    func waitingOnTheSignalEndsWhenTheTaskIsCancelled() async {
        let signal = ShutdownSignal()
        let waiter = Task { await signal.wait() }
        waiter.cancel()
        await waiter.value
        #expect(!signal.isTriggered)
        // An already-cancelled task does not block either.
        await withTaskGroup(of: Void.self) { group in
            group.cancelAll()
            group.addTask { await signal.wait() }
        }
    }

    @Test func shutdownSignalWakesEveryWaiterOnce() async {
        let signal = ShutdownSignal()
        async let first: Void = signal.wait()
        async let second: Void = signal.wait()
        signal.trigger()
        signal.trigger()
        _ = await (first, second)
        #expect(signal.isTriggered)
        await signal.wait()  // returns at once once triggered
    }
}
