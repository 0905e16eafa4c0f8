import Foundation
import Testing
import TestSupport
@testable import APNs

/// The HTTP/2 transport (libcurl's multi interface on a thread of its own) against a real HTTP/2 TLS server (hyper-h2): multiplexing, the server's
/// stream limit, GOAWAY, broken connections, deadlines, cancellation and shutdown.
@Suite("HTTP/2 transport")
struct HTTP2TransportTests {
    private func echo(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test("the curl thread carries the kernel name apns-curl, by which top -H, perf and the benchmark find it")
    func threadName() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        // An answer means the thread runs (and named itself before its first turn).
        let answer = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/1/x"), timeout: hangDeadline)
        #expect(answer.status == 200)
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        let names = tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
        #expect(names.contains("apns-curl\n"), "thread names: \(Set(names).sorted())")
        await transport.shutdown()
    }

    @Test("GET, POST and DELETE arrive with their path, headers and body; response headers are read")
    func methodsHeadersAndBodies() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        let body = Array(#"{"aps":{"event":"update"}}"#.utf8)
        let post = try await transport.perform(HTTPRequest(
            method: .post, endpoint: server.endpoint, path: "/4/broadcasts/apps/com.example.app",
            headers: [HTTPHeader("apns-push-type", "liveactivity"), HTTPHeader("x-test-header-apns-unique-id", "u-1")],
            body: body), timeout: hangDeadline)
        #expect(post.status == 200)
        #expect(post.headers.uniqueID == "u-1")
        let echoed = try echo(post)
        #expect(echoed["method"] as? String == "POST")
        #expect(echoed["path"] as? String == "/4/broadcasts/apps/com.example.app")
        #expect(echoed["body"] as? String == String(decoding: body, as: UTF8.self))
        let headers = try #require(echoed["headers"] as? [String: String])
        #expect(headers["apns-push-type"] == "liveactivity")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["accept"] == nil)

        let get = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/1/x"), timeout: hangDeadline)
        #expect(try echo(get)["method"] as? String == "GET")
        #expect(try echo(get)["body_length"] as? Int == 0)
        let delete = try await transport.perform(HTTPRequest(method: .delete, endpoint: server.endpoint, path: "/1/x"), timeout: hangDeadline)
        #expect(try echo(delete)["method"] as? String == "DELETE")
        // The handle that sent the POST is reused for a GET: no stale body may follow it.
        let again = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/1/y"), timeout: hangDeadline)
        #expect(try echo(again)["body_length"] as? Int == 0)
        #expect(try echo(again)["method"] as? String == "GET")
        await transport.shutdown()
    }

    @Test("a reused handle sends each request's own headers, path and authorization, nothing left from the one before")
    func reusedHandleRewritesHeaders() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        // One stream at a time, one after another: every request reuses the same easy handle.
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1), logger: TestLog.logger)
        let many = (0..<12).map { HTTPHeader("x-many-\($0)", String(repeating: "v", count: 100 + $0)) }
        let requests = [
            HTTPRequest(method: .post, endpoint: server.endpoint, path: "/4/a", authorization: "bearer first",
                        headers: [HTTPHeader("apns-channel-id", "Y2hhbm5lbDE="), HTTPHeader("apns-priority", "10")], body: [1]),
            HTTPRequest(method: .post, endpoint: server.endpoint, path: "/4/a", authorization: "bearer second",
                        headers: [HTTPHeader("apns-channel-id", "bG9uZ2VyIGNoYW5uZWwgaWQ=")], body: [2]),
            HTTPRequest(method: .post, endpoint: server.endpoint, path: "/4/b", authorization: "bearer third", headers: many, body: [3]),
            HTTPRequest(method: .get, endpoint: server.endpoint, path: "/4/b"),
        ]
        for request in requests {
            let echoed = try echo(try await transport.perform(request, timeout: hangDeadline))
            #expect(echoed["path"] as? String == request.path)
            let received = try #require(echoed["headers"] as? [String: String])
            var expected = Dictionary(uniqueKeysWithValues: request.headers.map { ($0.name, $0.value) })
            if let authorization = request.authorization { expected["authorization"] = authorization }
            if request.method == .post { expected["content-type"] = "application/json" }
            let sent = received.filter { !$0.key.hasPrefix(":") && !["content-length", "user-agent"].contains($0.key) }
            #expect(sent == expected)
        }
        await transport.shutdown()
    }

    @Test("status, reason body and custom headers come back as sent")
    func statusAndReason() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        let response = try await transport.perform(HTTPRequest(
            method: .post, endpoint: server.endpoint, path: "/x",
            headers: [HTTPHeader("x-test-status", "429"), HTTPHeader("x-test-reason", "TooManyRequests"),
                      HTTPHeader("x-test-header-retry-after", "7")]), timeout: hangDeadline)
        #expect(response.status == 429)
        #expect(response.headers.retryAfter == "7")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"reason": "TooManyRequests"}"#)
        await transport.shutdown()
    }

    @Test("300 concurrent requests are multiplexed over one connection")
    func multiplexesOverOneConnection() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1, streams: 100), logger: TestLog.logger)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<300 {
                group.addTask {
                    try await transport.perform(HTTPRequest(method: .post, endpoint: server.endpoint, path: "/m/\(index)",
                                                            body: Array("\(index)".utf8)), timeout: .seconds(10)).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 300 && statuses.allSatisfy { $0 == 200 })
        let stats = try await server.stats()
        #expect(stats["requests"] as? Int == 300)
        // One connection for the load (the stats request opens its own).
        #expect(stats["connections"] as? Int == 2)
        #expect((stats["max_concurrent"] as? Int ?? 0) > 1)
        await transport.shutdown()
    }

    @Test("a second connection opens only when the first is full, and no more than maxConnectionsPerHost")
    func secondConnectionWhenFull() async throws {
        let server = try await H2TestServer(.init(delayMilliseconds: 60))
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 2, streams: 10), logger: TestLog.logger)
        // Five at a time fit in one connection's ten streams.
        for round in 0..<2 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<5 {
                    group.addTask {
                        let response = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/few/\(round)/\(index)"),
                                                                    timeout: .seconds(10))
                        #expect(response.status == 200)
                    }
                }
                try await group.waitForAll()
            }
        }
        #expect(try await server.stats()["connections"] as? Int == 2)
        // Sixty at once need both connections' streams, never more than ten on one.
        let opened = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<60 {
                group.addTask {
                    try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/many/\(index)"),
                                                timeout: .seconds(20)).connectionsOpened
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(opened == 1)
        let stats = try await server.stats()
        // One load connection, a second for the burst, and one per stats() call.
        #expect(stats["connections"] as? Int == 4)
        let maxConcurrent = try #require(stats["max_concurrent"] as? Int)
        #expect(maxConcurrent > 5 && maxConcurrent <= 10)
        await transport.shutdown()
    }

    @Test("a 200 KB body goes out in many DATA frames under flow control, and a 200 KB answer comes back")
    func largeBodies() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(maxResponseBytes: 1 << 20), logger: TestLog.logger)
        let body = (0..<200_000).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let response = try await transport.perform(HTTPRequest(method: .post, endpoint: server.endpoint, path: "/large", body: body),
                                                    timeout: .seconds(10))
        let echoed = try echo(response)
        #expect(echoed["body_length"] as? Int == body.count)
        #expect(echoed["body"] as? String == String(decoding: body, as: UTF8.self))
        #expect(try #require(echoed["headers"] as? [String: String])["content-length"] == "200000")
        await transport.shutdown()
    }

    @Test("the server's stream limit is respected")
    func respectsServerStreamLimit() async throws {
        let server = try await H2TestServer(.init(maxConcurrentStreams: 4, delayMilliseconds: 40))
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1, streams: 100), logger: TestLog.logger)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/l/\(index)"),
                                                timeout: .seconds(10)).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 40 && statuses.allSatisfy { $0 == 200 })
        let stats = try await server.stats()
        let maxConcurrent = try #require(stats["max_concurrent"] as? Int)
        #expect(maxConcurrent <= 4)
        #expect(maxConcurrent >= 2)
        // The first request warms the connection up, so no stream goes out before the
        // client has seen the SETTINGS: nothing refused, nothing processed twice.
        #expect(stats["refused"] as? Int == 0)
        #expect(stats["requests"] as? Int == 40)
        let paths = try #require(stats["paths"] as? [String: Int])
        #expect(paths.count == 40 && paths.values.allSatisfy { $0 == 1 })
        await transport.shutdown()
    }

    @Test("GOAWAY in the middle of a burst: every request answered exactly once, none hang")
    func goAwayMidBurst() async throws {
        let server = try await H2TestServer(.init(goAwayAfter: 30, delayMilliseconds: 5))
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1, streams: 100), logger: TestLog.logger)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await transport.perform(HTTPRequest(method: .post, endpoint: server.endpoint, path: "/g/\(index)",
                                                            body: Array("\(index)".utf8)), timeout: .seconds(30)).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        // Every one answered 200: none waited for its 30 s deadline (that ends in a timeout
        // error), with no wall-clock bound for a loaded machine to miss.
        #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 })
        let stats = try await server.stats()
        #expect(stats["goaways"] as? Int == 1)
        #expect((stats["connections"] as? Int ?? 0) >= 3)
        // Streams above the GOAWAY's last id were never processed and were sent again; none twice.
        #expect(stats["requests"] as? Int == 200)
        let paths = try #require(stats["paths"] as? [String: Int])
        #expect(paths.count == 200 && paths.values.allSatisfy { $0 == 1 })
        await transport.shutdown()
    }

    @Test("a request on a stream above GOAWAY's last stream id, the last one on its connection, is sent again and answered once")
    func goAwayBelowOpenStream() async throws {
        // The second request reuses the first one's connection; the server answers it with
        // GOAWAY naming the first stream, so the second was never processed (RFC 9113 §6.8).
        // libcurl 7.88 fails such a stream, when no other is left on the connection, with a
        // bare CURLE_HTTP2 rather than resending it: the interleaving a burst under load
        // (goAwayMidBurst) reaches only now and then, every time.
        let server = try await H2TestServer(.init(goAwayBefore: 2))
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1), logger: TestLog.logger)
        for path in ["/first", "/second"] {
            let response = try await transport.perform(HTTPRequest(method: .post, endpoint: server.endpoint, path: path, body: [1]),
                                                       timeout: .seconds(30))
            #expect(response.status == 200)
            #expect(try echo(response)["path"] as? String == path)
        }
        let stats = try await server.stats()
        #expect(stats["goaways"] as? Int == 1)
        #expect(stats["connections"] as? Int == 3)  // the first, the fresh one for the resend, and stats()
        #expect(stats["requests"] as? Int == 2)
        #expect(stats["paths"] as? [String: Int] == ["/first": 1, "/second": 1])
        await transport.shutdown()
    }

    @Test("several streams above GOAWAY's last stream id at once: libcurl resends some, the client the last; each answered once")
    func goAwayBelowSeveralOpenStreams() async throws {
        // The first request warms the connection up; the next ten go out on it together, and
        // the first of them to arrive gets GOAWAY naming the warm-up stream: none of the ten
        // is processed there.
        let server = try await H2TestServer(.init(goAwayBefore: 2))
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1), logger: TestLog.logger)
        let warmUp = try await transport.perform(HTTPRequest(method: .post, endpoint: server.endpoint, path: "/warm-up", body: [1]),
                                                 timeout: .seconds(30))
        #expect(warmUp.status == 200)
        let paths = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<10 {
                group.addTask {
                    let response = try await transport.perform(
                        HTTPRequest(method: .post, endpoint: server.endpoint, path: "/s/\(index)", body: [1]), timeout: .seconds(30))
                    return try echo(response)["path"] as? String
                }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(Set(paths.compactMap { $0 }) == Set((0..<10).map { "/s/\($0)" }))
        let stats = try await server.stats()
        #expect(stats["goaways"] as? Int == 1)
        #expect(stats["requests"] as? Int == 11)
        let counts = try #require(stats["paths"] as? [String: Int])
        #expect(counts.count == 11 && counts.values.allSatisfy { $0 == 1 })
        await transport.shutdown()
    }

    @Test("a connection cut without GOAWAY: every request ends (answer or connectionLost), none hang")
    func brokenConnection() async throws {
        let server = try await H2TestServer(.init(cutAfter: 20, delayMilliseconds: 20))
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1, streams: 100), logger: TestLog.logger)
        let outcomes = await withTaskGroup(of: Result<Int, APNsClientError>.self) { group in
            for index in 0..<60 {
                group.addTask {
                    do throws(APNsClientError) {
                        return .success(try await transport.perform(
                            HTTPRequest(method: .get, endpoint: server.endpoint, path: "/c/\(index)"), timeout: .seconds(30)).status)
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: [Result<Int, APNsClientError>]()) { $0.append($1) }
        }
        #expect(outcomes.count == 60)
        // Failures are reported when the connection breaks (connectionLost), not when the 30 s
        // deadline passes (timeout): the codes say which, with no wall-clock bound.
        for case .failure(let error) in outcomes {
            #expect(error.code == .connectionLost, "\(error)")
        }
        // After the cut the client reconnects: a new request succeeds.
        let after = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/after"), timeout: hangDeadline)
        #expect(after.status == 200)
        let stats = try await server.stats()
        #expect(stats["cuts"] as? Int == 1)
        await transport.shutdown()
    }

    @Test("a silent server is cut off by the deadline")
    func silentServerTimesOut() async throws {
        let server = try await H2TestServer(.init(silent: true))
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        let endpoint = server.endpoint
        let started = ContinuousClock.now
        // The deadline ended the request; a request that never ends fails at the hang deadline.
        let error = try await withDeadline("a request to a silent server ends at its 400 ms deadline") { () async -> APNsClientError? in
            do throws(APNsClientError) {
                _ = try await transport.perform(HTTPRequest(method: .get, endpoint: endpoint, path: "/s"), timeout: .milliseconds(400))
                return nil
            } catch {
                return error
            }
        }
        #expect(error?.code == .timeout)
        #expect(ContinuousClock.now - started >= .milliseconds(380), "the deadline was waited for")
        await transport.shutdown()
    }

    @Test("requests waiting for a free stream also honour their deadline")
    func queuedRequestsTimeOut() async throws {
        let server = try await H2TestServer(.init(silent: true))
        defer { server.stop() }
        // One connection, two streams: the other requests wait in the client's own queue.
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1, streams: 2), logger: TestLog.logger)
        let endpoint = server.endpoint
        // Without the queue's own deadline check these would wait forever on a silent server:
        // the hang deadline turns that into a failure.
        let codes = try await withDeadline("six requests queued for two streams end at their deadline") {
          await withTaskGroup(of: APNsClientError.Code?.self) { group in
            for index in 0..<6 {
                group.addTask {
                    do throws(APNsClientError) {
                        _ = try await transport.perform(HTTPRequest(method: .get, endpoint: endpoint, path: "/q/\(index)"),
                                                        timeout: .milliseconds(300))
                        return nil
                    } catch {
                        return error.code
                    }
                }
            }
            return await group.reduce(into: [APNsClientError.Code?]()) { $0.append($1) }
          }
        }
        #expect(codes.count == 6 && codes.allSatisfy { $0 == .timeout })
        await transport.shutdown()
    }

    @Test("cancelling the caller's task ends its request at once")
    func cancellation() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        // The connection is up before the request that will be cancelled, so that request is
        // on a stream (the server holds its answer for a minute) when the cancellation comes.
        _ = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/warm"), timeout: .seconds(10))
        let task = Task {
            try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/c",
                                                    headers: [HTTPHeader("x-test-delay-ms", "60000")]), timeout: .seconds(60))
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        // Ended by the cancellation, not by the answer or the deadline a minute later: the
        // error's code says which, so no wall-clock bound is needed.
        let result = await task.result
        // On its stream (neverProcessed false) or, on a machine so busy that the task had not
        // handed it over yet, refused before sending (neverProcessed true): cancelled either way.
        let error = #expect(throws: APNsClientError.self) { try result.get() }
        #expect(error?.code == .cancelled)
        #expect(error?.message == "the request was cancelled")
        await transport.shutdown()
    }

    @Test("shutdown fails what is still pending and refuses new requests")
    func shutdownFailsPending() async throws {
        let server = try await H2TestServer(.init(silent: true))
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        let pending = Task {
            try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/p"), timeout: .seconds(30))
        }
        try await Task.sleep(for: .milliseconds(200))
        await transport.shutdown()
        let error = await #expect(throws: APNsClientError.self) { try await pending.value }
        #expect(error?.code == .shutdown)
        let late = await #expect(throws: APNsClientError.self) {
            _ = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/late"), timeout: .seconds(1))
        }
        #expect(late?.code == .shutdown)
    }

    @Test("nothing listening: connectionFailed, marked never processed")
    func connectionRefused() async throws {
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        // Port 1 on loopback: nothing listens there.
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await transport.perform(HTTPRequest(method: .get, endpoint: APNsEndpoint(host: "127.0.0.1", port: 1), path: "/"),
                                            timeout: hangDeadline)
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.neverProcessed == true)
        await transport.shutdown()
    }

    @Test("a certificate the CA file does not vouch for: tlsFailure")
    func untrustedCertificate() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let other = try await H2TestServer()
        defer { other.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await transport.perform(HTTPRequest(
                method: .get, endpoint: APNsEndpoint(host: "localhost", port: server.port, caFile: other.caFile), path: "/"),
                timeout: hangDeadline)
        }
        #expect(error?.code == .tlsFailure)
        await transport.shutdown()
    }

    @Test("an answer larger than the cap is refused as invalidResponse")
    func oversizedResponse() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(maxResponseBytes: 1000), logger: TestLog.logger)
        let fits = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/fits",
                                                           headers: [HTTPHeader("x-test-body-bytes", "1000")]), timeout: hangDeadline)
        #expect(fits.body.count == 1000)
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/big",
                                                        headers: [HTTPHeader("x-test-body-bytes", "1001")]), timeout: hangDeadline)
        }
        #expect(error?.code == .invalidResponse)
        await transport.shutdown()
    }
}

@Suite("HTTP/2 only")
struct HTTP1FallbackTests {
    @Test("a TLS server that only speaks HTTP/1.1 is refused as invalidResponse")
    func refusesHTTP1() async throws {
        let server = try await HTTP1TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/"), timeout: hangDeadline)
        }
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains("HTTP/2") == true)
        await transport.shutdown()
    }
}
