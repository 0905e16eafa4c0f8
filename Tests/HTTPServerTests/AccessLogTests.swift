import Foundation
import HTTPServer
import ScorecastLogging
import Testing
import TestSupport

@Suite("Access log")
struct AccessLogTests {
    @Test func oneLinePerRequestWithoutSecrets() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(
                .get, "/echo?token=query-secret-123&x=1",
                headers: ["Authorization": "Bearer header-secret-456", "X-Request-ID": "log-test-1"])
            #expect(response.status == 200)
            let posted = try await server.client.execute(
                .post, "/v1/events",
                headers: ["Authorization": "Bearer header-secret-456", "Content-Type": "application/json"],
                body: Array(#"{"events":[{"seq":1,"kind":"body-secret-789"}]}"#.utf8))
            #expect(posted.status == 202)
            _ = try await server.client.execute(.get, "/boom", headers: ["Authorization": "Bearer header-secret-456"])

            // The line is written when the request completes, just after the client has its answer.
            try await eventually("three access lines") { server.sink.lines.filter { $0.contains("http: request ") }.count >= 3 }
            let lines = server.sink.lines.filter { $0.contains("http: request ") }
            #expect(lines.count == 3)
            let echo = try #require(lines.first { $0.contains("request_id=log-test-1") })
            #expect(echo.contains(" INFO "))
            #expect(echo.contains("method=GET"))
            #expect(echo.contains("path=/echo "))
            #expect(echo.contains("status=200"))
            #expect(echo.contains("bytes=\(response.body.count)"))
            #expect(echo.contains("duration_ms="))
            #expect(echo.contains("remote=127.0.0.1"))
            #expect(lines.contains { $0.contains("method=POST") && $0.contains("path=/v1/events") && $0.contains("status=202") })

            let everything = server.sink.lines.joined(separator: "\n")
            #expect(!everything.contains("header-secret-456"))
            #expect(!everything.contains("query-secret-123"))
            #expect(!everything.contains("body-secret-789"))
            #expect(!everything.contains("Authorization"))
        }
    }

    @Test func noQueryStringReachesTheLogOnAnyPath() async throws {
        // Every way a request can end — answered, refused by the router, refused for its
        // headers or body, malformed, absolute-form — with a secret in its query; the test
        // logger records debug lines too.
        try await withServer(testRouter(), configure: { $0.maxBodyBytes = 1024 }) { server in
            let big = String(repeating: "h", count: 40 << 10)
            let requests = [
                "GET /echo?token=plain-secret-1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET http://x/echo?token=absolute-secret-2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /echo?token=%zz-invalid-secret-3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /nowhere?token=missing-secret-4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /echo?token=header-refused-secret-5 HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\nConnection: close\r\n\r\n",
                "POST /small?token=body-refused-secret-6 HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n",
                "BREW /echo?token=method-secret-7 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /echo?token=fragment-secret-8#frag HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            ]
            for request in requests { _ = try await RawHTTP.exchange(port: server.port, request) }
            try await eventually("an access line per request") {
                server.sink.lines.filter { $0.contains("http: request ") }.count >= requests.count
            }
            let lines = server.sink.lines.filter { $0.contains("http: request ") }
            #expect(lines.contains { $0.contains("path=/echo ") && $0.contains("status=431") })
            #expect(lines.contains { $0.contains("path=/small ") && $0.contains("status=413") })
            let everything = server.sink.lines.joined(separator: "\n")
            #expect(!everything.contains("secret"), "\(everything)")
            #expect(!everything.contains("token="))
        }
    }

    @Test func accessLogCanBeTurnedOff() async throws {
        try await withServer(testRouter(), configure: { $0.accessLog = false }) { server in
            _ = try await server.client.execute(.get, "/echo")
            try await Task.sleep(for: .milliseconds(50))
            #expect(!server.sink.lines.contains { $0.contains("http: request ") })
        }
    }
}
