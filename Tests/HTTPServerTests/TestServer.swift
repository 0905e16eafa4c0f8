import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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

    func url(_ target: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(target)")!
    }

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

/// A response as a client saw it.
struct ClientResponse: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }
}

/// One URLSession for the suite; generous per-host connections for the parallel test.
let testSession: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 64
    configuration.timeoutIntervalForRequest = 20
    return URLSession(configuration: configuration)
}()

/// Sends a request with URLSession.
func fetch(
    _ method: String, _ url: URL, headers: [String: String] = [:], body: Data? = nil
) async throws -> ClientResponse {
    var request = URLRequest(url: url)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    request.httpBody = body
    let (data, response) = try await testSession.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var fields: [String: String] = [:]
    for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { fields[name] = value }
    }
    return ClientResponse(status: http.statusCode, headers: fields, body: data)
}
