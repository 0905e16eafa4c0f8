import Foundation
import HTTPServer
import Lifecycle
import ScorecastLogging
import Testing
import TestSupport

@Suite("Concurrency, shutdown and transport limits")
struct ServerLifecycleTests {
    @Test func twoHundredParallelRequestsAreAllAnswered() async throws {
        // Each request is a connection of its own, all open at once: the per-address cap (100
        // by default, for attackers) must admit them.
        try await withServer(testRouter(), configure: { $0.maxConnectionsPerAddress = 256 }) { server in
            let statuses = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let response = try await server.client.get(index % 2 == 0 ? "/v1/games/\(index)/channels" : "/slow?ms=20")
                        return (response.status, index % 2 == 0 ? ((try response.json())["game"] as? String ?? "") : response.text)
                    }
                }
                var all: [(Int, String)] = []
                for try await result in group { all.append(result) }
                return all
            }
            #expect(statuses.count == 200)
            #expect(statuses.allSatisfy { $0.0 == 200 })
            #expect(Set(statuses.map(\.1)).count == 101)
            // A request leaves the count just after its answer is written, so the client may read
            // the last answers first: wait for the count to settle; a leaked request never does.
            try await eventually("every answered request leaves the in-flight count") { server.server.inFlightRequests == 0 }
        }
    }

    @Test func slowHandlersDoNotHoldTheServerThread() async throws {
        // One libmicrohttpd thread: if a waiting handler blocked it, the fast request would
        // queue behind the slow ones. The slow ones wait on a gate the test opens, not on a
        // clock: the fast answer must come while they still wait, however loaded the machine.
        let gate = ShutdownSignal()
        var router = testRouter()
        router.get("/held") { _ in
            await gate.wait()
            return .text("released")
        }
        try await withServer(router, configure: { $0.threadCount = 1 }) { server in
            let slow = (0..<3).map { _ in Task { try await server.client.execute(.get, "/held") } }
            try await eventually("three requests wait in their handler") { server.server.inFlightRequests == 3 }
            let fast = try await server.client.execute(.get, "/v1/games/1/channels")
            #expect(fast.status == 200)
            // The fast request leaves the count just after its answer is written, so the client
            // can read the answer first (seen under AddressSanitizer): wait for the count to
            // settle. Only the three held requests can keep it at 3; they wait on the gate.
            try await eventually("only the three held requests are in flight") { server.server.inFlightRequests == 3 }
            gate.trigger()
            for task in slow {
                let response = try await withDeadline("a held request is answered once released") { try await task.value }
                #expect(response.status == 200)
                #expect(response.text == "released")
            }
        }
    }

    @Test func gracefulStopFinishesTheRequestInFlight() async throws {
        let sink = MemorySink()
        let gate = RequestGate()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadCount: 2, shutdownGracePeriod: .seconds(3_600)),
            router: testRouter(gate: gate), logger: Logger(label: "http", sink: sink))
        try server.start()
        let port = server.port
        let shutdown = ShutdownSignal()
        let running = Task { try await server.run(until: shutdown) }

        let inFlight = Task { try await RawHTTP.exchange(port: port, "GET /held HTTP/1.1\r\nHost: x\r\n\r\n", readTimeout: 60) }
        // The request is inside its handler; the server is asked to stop and starts draining;
        // only then is the handler let go. (A 400 ms sleep here once finished before a slow
        // machine had begun draining, and the answer had no `Connection: close`.)
        try await eventually("the request is in its handler") { server.inFlightRequests == 1 }
        shutdown.trigger()
        try await eventually("the server drains") { sink.lines.contains { $0.contains("http server draining") } }
        gate.open()
        // It stops when its one request is answered, not at the end of the hour's grace: stopping
        // at all before the hang deadline tells them apart, with no margin to miss.
        try await withDeadline("the server stops once its one request is answered") { try await running.value }

        let exchange = try await withDeadline("the in-flight answer") { try await inFlight.value }
        #expect(exchange.status == 200)
        #expect(exchange.text.hasSuffix("released"))
        #expect(exchange.headersAndBody.headers["connection"]?.lowercased() == "close")
        // Stopped: nothing listens any more.
        await #expect(throws: RawHTTP.SocketError.self) {
            _ = try await RawHTTP.exchange(port: port, "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        #expect(sink.lines.contains { $0.contains("http server stopped") })
    }

    @Test func handlersPastTheGracePeriodAreAnswered503() async throws {
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadCount: 2, shutdownGracePeriod: .milliseconds(200)),
            router: testRouter(), logger: Logger(label: "http", sink: MemorySink()))
        try server.start()
        let port = server.port
        let shutdown = ShutdownSignal()
        let running = Task { try await server.run(until: shutdown) }
        let inFlight = Task { try await RawHTTP.exchange(port: port, "GET /slow?ms=10000 HTTP/1.1\r\nHost: x\r\n\r\n", readTimeout: 60) }
        try await eventually("the request is in its handler") { server.inFlightRequests == 1 }
        shutdown.trigger()
        try await withDeadline("the server stops after its grace period") { try await running.value }
        // Cut at the 200 ms grace, not after the 10 s request: the answer says which (the handler
        // would have answered 200 "slept 10000"), so no clock is read.
        let exchange = try await withDeadline("the in-flight answer") { try await inFlight.value }
        #expect(exchange.status == 503)
        #expect(exchange.text.contains("shutting down"))
    }

    @Test func silentClientsAreDisconnectedAfterTheTimeout() async throws {
        try await withServer(testRouter(), configure: { $0.connectionTimeoutSeconds = 1 }) { server in
            // Half a request line, then silence.
            // The client would wait a minute: closedByServer says the server's timeout cut it.
            let exchange = try await RawHTTP.exchange(port: server.port, parts: [Array("GET /echo HT".utf8)], readTimeout: 60)
            #expect(exchange.closedByServer)
            #expect(exchange.elapsed >= 0.9)

            // Headers in, body stalled: the request is released and logged as timed out.
            let stalled = try await RawHTTP.exchange(
                port: server.port, parts: [Array("POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc".utf8)], readTimeout: 60)
            #expect(stalled.closedByServer)
            #expect(stalled.status == nil)
            try await eventually("the stalled request is released") { server.server.inFlightRequests == 0 }
            #expect(server.sink.lines.contains { $0.contains("method=POST") && $0.contains("outcome=timeout") })
        }
    }

    @Test func slowButSteadyClientsAreServed() async throws {
        // Four pauses of 1.5 s, each well inside the 5 s idle timeout, together past it: the
        // timeout counts idleness, not the request's whole time (no tight margin for a loaded machine).
        try await withServer(testRouter(), configure: { $0.connectionTimeoutSeconds = 5 }) { server in
            let parts = ["GET /echo", "?x=1 HTTP/1.1\r\n", "Host: x\r\n", "X-Slow: a\r\n", "Connection: close\r\n\r\n"].map { Array($0.utf8) }
            let exchange = try await RawHTTP.exchange(port: server.port, parts: parts, pause: 1.5)
            #expect(exchange.status == 200)
        }
    }

    @Test func malformedRequestsAreRefusedAndReleased() async throws {
        try await withServer(testRouter()) { server in
            let garbage = try await RawHTTP.exchange(port: server.port, "GET /echo HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n")
            #expect(garbage.status == 400)
            let badLength = try await RawHTTP.exchange(port: server.port, "POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n")
            #expect(badLength.status == 400)
            let badVersion = try await RawHTTP.exchange(port: server.port, "GET /echo HTTP/7.0\r\nHost: x\r\n\r\n")
            #expect(badVersion.status == 505)
            let lying = try await RawHTTP.exchange(
                port: server.port, parts: [Array("POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort".utf8)], readTimeout: 0.3)
            #expect(lying.status == nil)
            // Every request context was released (the lying one when its connection closes).
            try await eventually("every request context is released") { server.server.inFlightRequests == 0 }
        }
    }

    @Test func clientsLeavingDuringAHandlerAreReleased() async throws {
        try await withServer(testRouter()) { server in
            // Send, then hang up before the 300 ms handler answers.
            let gone = try await RawHTTP.exchange(port: server.port, "GET /slow?ms=300 HTTP/1.1\r\nHost: x\r\n\r\n", readTimeout: 0.05)
            #expect(gone.status == nil)
            try await eventually("the abandoned request is released") { server.server.inFlightRequests == 0 }
            // The server is still fine.
            #expect(try await server.client.execute(.get, "/echo").status == 200)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer(testRouter()) { server in
            let two =
                "GET /v1/games/1/channels HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /slow?ms=10 HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /v1/games/3/channels HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let exchange = try await RawHTTP.exchange(port: server.port, two)
            let text = exchange.text
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 4)
            let first = try #require(text.range(of: #""game":"1""#))
            let second = try #require(text.range(of: "slept 10"))
            let third = try #require(text.range(of: #""game":"3""#))
            #expect(first.lowerBound < second.lowerBound && second.lowerBound < third.lowerBound)
        }
    }

    @Test func startFailuresAreExplained() async throws {
        let first = HTTPServer(configuration: HTTPServerConfiguration(port: 0), router: Router(), logger: Logger(label: "http", sink: MemorySink()))
        try first.start()
        let taken = HTTPServer(configuration: HTTPServerConfiguration(port: first.port), router: Router(), logger: Logger(label: "http", sink: MemorySink()))
        #expect {
            try taken.start()
        } throws: { error in
            guard let error = error as? HTTPServerError else { return false }
            return error.code == .startFailed && error.message.contains("\(first.port)")
        }
        #expect(throws: HTTPServerError(.alreadyStarted, "the server was already started")) { try first.start() }

        let badHost = HTTPServer(configuration: HTTPServerConfiguration(host: "example.com", port: 0), router: Router(), logger: Logger(label: "http"))
        #expect { try badHost.start() } throws: { ($0 as? HTTPServerError)?.code == .invalidHost }
        let badPort = HTTPServer(configuration: HTTPServerConfiguration(port: 70000), router: Router(), logger: Logger(label: "http"))
        #expect { try badPort.start() } throws: { ($0 as? HTTPServerError)?.code == .invalidConfiguration }

        let shutdown = ShutdownSignal()
        shutdown.trigger()
        try await first.run(until: shutdown)
    }

    @Test func servesOverIPv6Loopback() async throws {
        var router = Router()
        router.get("/") { request in .text(request.remoteAddress ?? "?") }
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "::1", port: 0), router: router, logger: Logger(label: "http", sink: MemorySink()))
        do {
            try server.start()
        } catch let error as HTTPServerError where error.code == .startFailed {
            // No IPv6 loopback on this machine: nothing to check.
            return
        }
        let shutdown = ShutdownSignal()
        let running = Task { try await server.run(until: shutdown) }
        let exchange = try await RawHTTP.exchange(host: "::1", port: server.port, parts: [Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)])
        #expect(exchange.status == 200)
        #expect(exchange.headersAndBody.body == Array("::1".utf8))
        shutdown.trigger()
        try await running.value
    }
}
