import Foundation
import ScorecastLogging
import Synchronization

/// Runs services together: starts them in order and, on SIGTERM or SIGINT (or when one of them
/// ends or fails), stops them in reverse order, waiting for each before stopping the next.
public struct ServiceGroup: Sendable {
    private let services: [any Service]
    private let signals: [Int32]
    private let gracePeriod: Duration
    private let logger: Logger

    /// Creates a group. `gracePeriod` bounds each service's graceful stop; past it the group
    /// escalates to cancellation, as swift-service-lifecycle does: every service still running
    /// is cancelled, and a `CancellationError` one throws then is not counted as a failure.
    public init(
        services: [any Service],
        signals: [Int32] = [SIGTERM, SIGINT],
        gracePeriod: Duration = .seconds(10),
        logger: Logger
    ) {
        self.services = services
        self.signals = signals
        self.gracePeriod = gracePeriod
        self.logger = logger
    }

    /// Runs until a signal arrives, `stop` is triggered, or a service ends; rethrows the first
    /// service failure.
    public func run(until stop: ShutdownSignal = ShutdownSignal()) async throws {
        let stops = services.map { _ in ShutdownSignal() }
        let finished = services.map { _ in ShutdownSignal() }
        let anyEnded = ShutdownSignal()
        let failure = FirstFailure()
        let escalated = EscalationFlag()
        let signalWatcher = SignalWatcher(signals: signals)
        defer { signalWatcher.cancel() }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, service) in services.enumerated() {
                logger.info("starting", ["service": service.name])
                group.addTask {
                    do {
                        try await service.run(until: stops[index])
                    } catch is CancellationError where escalated.isSet {
                        logger.info("service cancelled", ["service": service.name])
                    } catch {
                        failure.record(error)
                        logger.error("service failed", ["service": service.name, "error": "\(error)"])
                    }
                    finished[index].trigger()
                    anyEnded.trigger()
                }
            }

            // Whichever comes first, a signal or a service ending, begins the shutdown.
            let shutdownReason = await firstOf(signalWatcher, anyEnded, stop)
            logger.info("shutting down", ["reason": shutdownReason])
            for index in services.indices.reversed() {
                stops[index].trigger()
                let inTime = await waitWithTimeout(finished[index], timeout: gracePeriod)
                if !inTime {
                    logger.warning("service did not stop in time; cancelling", ["service": services[index].name])
                    escalated.set()
                    group.cancelAll()
                    await finished[index].wait()
                }
                logger.info("stopped", ["service": services[index].name])
            }
            try await group.waitForAll()
        }
        if let error = failure.error { throw error }
    }

    private func firstOf(_ watcher: SignalWatcher, _ ended: ShutdownSignal, _ stop: ShutdownSignal) async -> String {
        await withTaskGroup(of: String.self) { group in
            group.addTask { await watcher.next().map { "signal \($0)" } ?? "cancelled" }
            group.addTask { await ended.wait(); return "a service ended" }
            group.addTask { await stop.wait(); return "stop requested" }
            let reason = await group.next() ?? "cancelled"
            group.cancelAll()
            watcher.cancel()
            ended.trigger()
            stop.trigger()
            return reason
        }
    }

    private func waitWithTimeout(_ signal: ShutdownSignal, timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await signal.wait(); return true }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}

/// Whether the group has escalated a late graceful stop to cancellation.
private final class EscalationFlag: Sendable {
    private let flag = Atomic(false)
    func set() { flag.store(true, ordering: .releasing) }
    var isSet: Bool { flag.load(ordering: .acquiring) }
}

/// Keeps the first error thrown by any service.
private final class FirstFailure: Sendable {
    private let storage = Mutex<(any Error)?>(nil)
    func record(_ error: any Error) { storage.withLock { if $0 == nil { $0 = error } } }
    var error: (any Error)? { storage.withLock { $0 } }
}

