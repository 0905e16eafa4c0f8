import Foundation
import HTTPServer
import Lifecycle
import ScorecastLogging
import Testing
import TestSupport

/// A server started on 127.0.0.1, port 0, with its log captured.
struct RunningServer {
    let server: HTTPServer
    let shutdown: ShutdownSignal
    let task: Task<Void, any Error>
    let sink: MemorySink

    var port: Int { server.port }

    /// A client of this server over a real connection.
    var client: TestClient { .live(port: port) }

    /// Triggers shutdown and waits for `run(until:)` to return (failing at the hang deadline).
    func stop() async throws {
        shutdown.trigger()
        try await withDeadline("the HTTP server stops") { [task] in try await task.value }
    }
}

/// Starts a server for `router`, runs `body`, then stops the server (also when `body` throws).
func withServer<T>(
    _ router: Router,
    configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    _ body: (RunningServer) async throws -> T
) async throws -> T {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadCount: 2)
    configure(&configuration)
    let sink = MemorySink()
    let logger = Logger(label: "http", level: .debug, sink: sink)
    let server = HTTPServer(configuration: configuration, router: router, logger: logger)
    try server.start()
    let shutdown = ShutdownSignal()
    let task = Task { try await server.run(until: shutdown) }
    let running = RunningServer(server: server, shutdown: shutdown, task: task, sink: sink)
    do {
        let result = try await body(running)
        try await running.stop()
        return result
    } catch {
        try? await running.stop()
        throw error
    }
}
