/// A long-lived part of the process (HTTP server, worker pool, poller…), run by a `ServiceGroup`.
public protocol Service: Sendable {
    /// A short name for logs, e.g. `http` or `workers`.
    var name: String { get }

    /// Runs the service. Returns after `shutdown` is triggered, once in-flight work is finished
    /// or released; throws if the service cannot go on. Task cancellation means "stop now".
    func run(until shutdown: ShutdownSignal) async throws
}
