import Foundation
import HTTPServer
import Testing
import TestSupport

/// A route's gate answers on the headers: a client without credentials is refused before it
/// sends (or trickles) the body it announced, and its connection is freed for everyone else.
/// Outcomes are checked with generous read timeouts, never tight timings.
@Suite struct EarlyRefusalTests {
    static let key = "Bearer right-key"

    /// `POST /upload` behind a gate wanting `key`; with `suspending`, the gate first awaits a
    /// real suspension, as one reading a database does. `GET /healthz` is open.
    private func router(suspending: Bool = false) -> Router {
        var router = Router()
        router.get("/healthz") { _ in .text("ok") }
        let gate = Gate { request in
            if suspending { try await Task.sleep(for: .milliseconds(20)) }
            guard request.headers["Authorization"] == Self.key else {
                throw Problem(status: .unauthorized, detail: "the key is not valid", headers: ["WWW-Authenticate": "Bearer"])
            }
            return nil
        }
        router.post("/upload", gate: gate) { request in .text("\(request.body.count)") }
        return router
    }

    /// Only the gate can answer in time: no body deadline, rate or idle timeout comes close.
    private func patient(_ configuration: inout HTTPServerConfiguration) {
        configuration.bodyTimeoutSeconds = 600
        configuration.connectionTimeoutSeconds = 600
        configuration.minimumBodyBytesPerSecond = 0
    }

    private func head(key: String, length: Int) -> [UInt8] {
        Array("POST /upload HTTP/1.1\r\nHost: x\r\nAuthorization: \(key)\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n".utf8)
    }

    private func expectRefused(_ exchange: RawHTTP.Exchange, _ comment: Comment? = nil) {
        #expect(exchange.status == 401, comment)
        let (headers, body) = exchange.headersAndBody
        #expect(headers["content-type"] == "application/problem+json", comment)
        let problem = (try? jsonObject(body)) ?? [:]
        #expect(problem["detail"] as? String == "the key is not valid", comment)
    }

    @Test(arguments: [false, true])
    func aBadKeyIsRefusedBeforeTheBodyIsSent(suspending: Bool) async throws {
        try await withServer(router(suspending: suspending), configure: patient) { server in
            // The headers announce 900 KB and not a byte of it follows.
            let refused = try await RawHTTP.exchange(port: server.port, parts: [head(key: "Bearer wrong", length: 900_000)], readTimeout: 60)
            expectRefused(refused)
            #expect(refused.closedByServer)
            // The right key reads the body and reaches the handler.
            let body = [UInt8](repeating: 0x61, count: 10_000)
            let admitted = try await RawHTTP.exchange(
                port: server.port, parts: [head(key: Self.key, length: body.count), body], readTimeout: 60)
            #expect(admitted.status == 200)
            #expect(admitted.headersAndBody.body == Array("10000".utf8))
        }
    }

    @Test func slowClientsWithABadKeyFromOtherAddressesDoNotStopOthersBeingServed() async throws {
        // One thread, so the total cap is exact: five addresses with eight connections each,
        // every address within the per-address cap, fill it.
        try await withServer(router(), configure: {
            patient(&$0)
            $0.threadCount = 1
            $0.maxConnections = 40
            $0.maxConnectionsPerAddress = 8
        }) { server in
            let sources = (2...6).map { "127.0.0.\($0)" }
            let attackers = try sources.flatMap { source in
                try (0..<8).map { _ in try OpenSocket(source: source, port: server.port) }
            }
            defer { attackers.forEach { $0.close() } }
            // Full headers with a bad key and a large length, then the body's first bytes.
            for attacker in attackers {
                attacker.send(head(key: "Bearer wrong", length: 900_000) + Array("{\"events\":".utf8))
            }
            // Normal requests from 127.0.0.1 while every attacker still holds its socket open.
            for _ in 0..<10 {
                let normal = try await RawHTTP.exchange(
                    port: server.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", readTimeout: 30)
                #expect(normal.status == 200)
            }
            let body = [UInt8](repeating: 0x61, count: 1_000)
            let feed = try await RawHTTP.exchange(port: server.port, parts: [head(key: Self.key, length: body.count), body], readTimeout: 30)
            #expect(feed.status == 200)
            // Each attacker was answered 401 after its headers, and goes on trickling into a
            // connection that only drains it.
            for (index, attacker) in attackers.enumerated() {
                attacker.send(Array("[".utf8))
                expectRefused(await attacker.readUntilClosed(timeout: 30), "attacker \(index)")
            }
        }
    }
}
