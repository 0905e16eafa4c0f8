import Foundation
import HTTPServer
import Synchronization

/// An error whose description must never reach a client.
struct LeakyError: Error, CustomStringConvertible {
    var description: String { "database password hunter2 rejected at /srv/secret/path" }
}

/// Holds the answers of `GET /held` until opened: a handler that is surely still running at a
/// moment the test picks, with no sleep to race.
final class RequestGate: Sendable {
    private let opened = Mutex(false)

    func open() { opened.withLock { $0 = true } }

    /// Returns once the gate is open (checked every 5 ms; the test opens it).
    func wait() async throws {
        while !opened.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
    }
}

/// Routes shared by the end-to-end tests; `GET /held` waits for `gate` when one is given.
func testRouter(gate: RequestGate? = nil) -> Router {
    var router = Router()
    if let gate {
        router.get("/held") { _ in
            try await gate.wait()
            return .text("released")
        }
    }
    router.get("/v1/games/{id}/channels") { request in
        try .json(["game": request.pathParameters["id"] ?? "", "channel": "ch-\(request.pathParameters["id"] ?? "")"])
    }
    router.get("/v1/games/live/channels") { _ in
        .text("the live literal route")
    }
    router.get("/echo") { request in
        try .json([
            "path": request.path,
            "x": request.queryValues("x").joined(separator: "|"),
            "y": request.query("y") ?? "",
            "requestID": request.requestID,
            "remote": request.remoteAddress ?? "",
        ])
    }
    router.post("/v1/events", options: .json()) { request in
        let body = try request.jsonObject()
        guard let events = body["events"]?.arrayValue else {
            throw Problem.unprocessable("events must be an array", errors: [.init(field: "events", detail: "must be an array")])
        }
        return try .json(["accepted": events.count], status: .accepted)
    }
    router.post("/upload", options: RouteOptions(maxBodyBytes: 4 << 20)) { request in
        .text("\(request.body.count)")
    }
    router.post("/small") { request in
        .text("\(request.body.count)")
    }
    router.get("/boom") { _ in
        throw LeakyError()
    }
    router.get("/problem") { _ in
        throw Problem(status: .conflict, detail: "already exists", errors: [.init(field: "game.id", detail: "taken")])
    }
    router.get("/slow") { request in
        let milliseconds = try request.query("ms", as: Int.self) ?? 300
        try await Task.sleep(for: .milliseconds(milliseconds))
        return .text("slept \(milliseconds)")
    }
    router.delete("/v1/games/{id}") { _ in .empty() }
    return router
}
