import ScorecastLogging

/// A resource started before the group runs (a connection pool, clients, a listening server),
/// held as a service so that the group releases it in its place in the reverse order — and so
/// that a start-up that fails half-way stops what it had already started.
public struct ReleaseOnShutdown: Service {
    /// The resource's name, for logs.
    public let name: String
    private let release: @Sendable () async -> Void

    /// A service that waits for shutdown (or cancellation), then calls `release` once.
    public init(_ name: String, release: @escaping @Sendable () async -> Void) {
        self.name = name
        self.release = release
    }

    /// Waits for `shutdown`, then releases the resource.
    public func run(until shutdown: ShutdownSignal) async throws {
        await shutdown.wait()
        await release()
    }
}

extension ServiceGroup {
    /// Stops `services` that were started but will not run: each is run with its stop already
    /// requested, in reverse order, waiting for each before the next. For the error path of a
    /// start-up that failed after starting some of them.
    public static func stop(_ services: [any Service], gracePeriod: Duration, logger: Logger) async {
        let stopNow = ShutdownSignal()
        stopNow.trigger()
        do {
            try await ServiceGroup(services: services, signals: [], gracePeriod: gracePeriod, logger: logger).run(until: stopNow)
        } catch {
            logger.warning("a service failed while stopping after a failed start", ["error": "\(error)"])
        }
    }
}
