import Foundation
import HTTPServer
import Testing
import TestSupport

/// Slow and greedy clients (slowloris): the caps and deadlines keep the server answering
/// everyone else. Outcomes are checked with generous deadlines, never tight timings.
@Suite struct ConnectionLimitTests {
    private func healthRouter() -> Router {
        var router = Router()
        router.get("/healthz") { _ in .text("ok") }
        return router
    }

    @Test func twoThousandSlowClientsDoNotStopAnotherAddressFromBeingServed() async throws {
        try await withServer(healthRouter(), configure: {
            $0.maxConnectionsPerAddress = 50
            $0.maxConnections = 1000
            $0.refusalSummaryInterval = .seconds(1)
        }) { server in
            let attack = try SlowClients(port: server.port, count: 2_000, interval: 2)
            #expect(await attack.waitUntilOpen() == 2_000)
            // The attack is in place: the server has refused connections beyond the
            // per-address cap and said so in a summary line.
            try await eventually("the refusal is logged") { server.sink.lines.contains { $0.contains("refused or cut") } }

            let started = ContinuousClock.now
            let health = try await RawHTTP.exchange(
                source: "127.0.0.2", port: server.port, parts: [Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)],
                readTimeout: 30)
            let waited = ContinuousClock.now - started
            let cut = await attack.stop()

            #expect(health.status == 200)
            #expect(health.headersAndBody.body == Array("ok".utf8))
            // At most 50 of the 2,000 were kept; the rest were closed on arrival.
            #expect((cut ?? 0) >= 1_950)
            func refusalsLogged() -> (lines: Int, refused: Int) {
                let summaries = server.sink.lines.filter { $0.contains("refused or cut") }
                let refused = summaries.compactMap { line in
                    line.split(separator: " ").first { $0.hasPrefix("refused_at_connection_caps=") }.flatMap { Int($0.split(separator: "=")[1]) }
                }
                return (summaries.count, refused.reduce(0, +))
            }
            try await eventually("at least 1,950 refusals are logged") { refusalsLogged().refused >= 1_950 }
            #expect(refusalsLogged().lines < 100, "one line per interval, not one per connection")
            print("healthz from 127.0.0.2 under 2,000 slow connections answered in \(waited)")
        }
    }

    @Test func aClientTricklingItsHeadersIsCutAtTheHeaderDeadline() async throws {
        try await withServer(healthRouter(), configure: {
            $0.headerTimeoutSeconds = 1
            $0.connectionTimeoutSeconds = 600
            $0.refusalSummaryInterval = .seconds(1)
        }) { server in
            // A header line every 0.2 s for up to 60 s: never idle, so only a deadline stops it.
            let parts = [Array("GET /healthz HTTP/1.1\r\n".utf8)] + Array(repeating: Array("X-Slow: 1\r\n".utf8), count: 300)
            let exchange = try await RawHTTP.exchange(port: server.port, parts: parts, pause: 0.2, readTimeout: 60)
            #expect(exchange.closedByServer)
            #expect(exchange.status == nil)
            #expect(exchange.partsSent < parts.count, "cut while still trickling (\(exchange.partsSent) of \(parts.count) parts sent)")
            try await eventually("the cut at the header deadline is logged") { server.sink.lines.contains { $0.contains("cut_at_header_deadline=1") } }
            // A well-behaved client is unaffected.
            let normal = try await server.client.get("/healthz")
            #expect(normal.status == 200)
        }
    }

    /// The `408` problem the guard writes for a body that came too slowly.
    private func expectTimeoutProblem(_ exchange: RawHTTP.Exchange, mentioning text: String) {
        #expect(exchange.status == 408)
        let (headers, body) = exchange.headersAndBody
        #expect(headers["content-type"] == "application/problem+json")
        #expect(headers["connection"] == "close")
        #expect(headers["x-request-id"]?.isEmpty == false)
        let problem = (try? jsonObject(body)) ?? [:]
        #expect(problem["status"] as? Int == 408)
        #expect((problem["detail"] as? String)?.contains(text) == true, "\(problem)")
        #expect(problem["requestId"] as? String == headers["x-request-id"])
    }

    @Test func aClientTricklingItsBodyIsAnswered408AtTheBodyDeadline() async throws {
        var router = healthRouter()
        router.post("/upload") { request in .text("\(request.body.count)") }
        try await withServer(router, configure: {
            $0.bodyTimeoutSeconds = 1
            $0.minimumBodyBytesPerSecond = 0
            $0.connectionTimeoutSeconds = 600
        }) { server in
            let head = Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n".utf8)
            let parts = [head] + Array(repeating: Array("x".utf8), count: 300)
            let exchange = try await RawHTTP.exchange(port: server.port, parts: parts, pause: 0.2, readTimeout: 60)
            #expect(exchange.closedByServer)
            expectTimeoutProblem(exchange, mentioning: "did not arrive in time")
            #expect(exchange.partsSent < parts.count, "cut while still trickling (\(exchange.partsSent) of \(parts.count) parts sent)")
        }
    }

    @Test func aBodyBelowTheMinimumRateIsAnswered408LongBeforeTheDeadline() async throws {
        var router = healthRouter()
        router.post("/upload") { request in .text("\(request.body.count)") }
        // A rate no trickle reaches, and a deadline no test waits for: only the rate can answer.
        try await withServer(router, configure: {
            $0.bodyTimeoutSeconds = 600
            $0.connectionTimeoutSeconds = 600
            $0.minimumBodyBytesPerSecond = 1_000_000
            $0.bodyRateGracePeriod = .seconds(1)
            $0.refusalSummaryInterval = .seconds(1)
        }) { server in
            let head = Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n".utf8)
            let slow = try await RawHTTP.exchange(port: server.port, parts: [head, Array("0123456789".utf8)], readTimeout: 60)
            #expect(slow.closedByServer)
            expectTimeoutProblem(slow, mentioning: "slower than the server's minimum rate")
            try await eventually("the cut below the minimum body rate is logged") { server.sink.lines.contains { $0.contains("cut_below_minimum_body_rate=1") } }
            // A body sent at once is far above any such rate.
            let body = [UInt8](repeating: 0x61, count: 10_000)
            let fast = try await RawHTTP.exchange(
                port: server.port, parts: [Array("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10000\r\nConnection: close\r\n\r\n".utf8), body])
            #expect(fast.status == 200)
            #expect(fast.headersAndBody.body == Array("10000".utf8))
        }
    }

}
