import Registry
import ScorecastCrypto
import Foundation
import HTTPServer
import Lifecycle
import ScorecastLogging
import Postgres
import ScorecastCore
import ServiceBase
import Testing
import TestSupport

@Suite("POST /v1/events: bad input is refused and writes nothing")
struct IngestRefusalTests {
    /// One bad request and what must come back.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let body: String
        let status: Int
        /// Fields the problem must name (empty: any).
        let fields: [String]
        var testDescription: String { name }
    }

    static let valid = EventJSON.event(id: "ok", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#)

    static let bodyCases: [Case] = [
        Case(name: "malformed JSON", body: #"{"id": "e1", "game": "#, status: 400, fields: []),
        Case(name: "trailing garbage", body: valid + "]", status: 400, fields: []),
        Case(name: "empty body", body: "", status: 400, fields: []),
        Case(name: "not an object", body: "[1, 2]", status: 422, fields: [""]),
        Case(name: "seq as a string", body: EventJSON.event(id: "e1", seq: 1).replacingOccurrences(of: "\"seq\": 1", with: "\"seq\": \"1\""),
             status: 422, fields: ["seq"]),
        Case(name: "score as a float", body: EventJSON.event(id: "e1", seq: 1, scoreboard: #"{"home": 1.5}"#),
             status: 422, fields: ["scoreboard.home"]),
        Case(name: "missing id and kind", body: #"{"game": "g1", "seq": 1, "occurredAt": "2025-11-29T21:00:00Z"}"#,
             status: 422, fields: ["id", "kind"]),
        Case(name: "huge description", body: EventJSON.event(id: "e1", seq: 1, extra: "\"description\": \"\(String(repeating: "x", count: 5_000))\""),
             status: 422, fields: ["description"]),
        Case(name: "huge id", body: EventJSON.event(id: String(repeating: "i", count: 300), seq: 1), status: 422, fields: ["id"]),
        Case(name: "unknown kind", body: EventJSON.event(id: "e1", seq: 1, kind: "touchdown-dance"), status: 422, fields: ["kind"]),
        Case(name: "seq zero", body: EventJSON.event(id: "e1", seq: 0), status: 422, fields: ["seq"]),
        Case(name: "bad time", body: EventJSON.event(id: "e1", seq: 1).replacingOccurrences(of: "2025-", with: "25-"),
             status: 422, fields: ["occurredAt"]),
        Case(name: "one bad event refuses the batch", body: EventJSON.batch([
            valid, EventJSON.event(id: "e2", seq: 2), EventJSON.event(id: "e3", seq: -3),
        ]), status: 422, fields: ["events[2].seq"]),
        Case(name: "repeated id in a batch", body: EventJSON.batch([EventJSON.event(id: "d", seq: 1), EventJSON.event(id: "d", seq: 2)]),
             status: 422, fields: ["events[1].id"]),
        Case(name: "batch over the limit", body: EventJSON.batch((1...51).map { EventJSON.event(id: "b\($0)", seq: $0) }),
             status: 422, fields: ["events"]),
        Case(name: "empty batch", body: #"{"events": []}"#, status: 422, fields: ["events"]),
    ]

    @Test("bad bodies", arguments: bodyCases)
    func badBodies(_ badCase: Case) async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            try await fixture.addChannel(boundTo: "g1")
            let before = try await fixture.counts()
            let reply = await fixture.post(badCase.body)
            #expect(reply.status == badCase.status, "\(reply.text)")
            #expect(reply.json["status"]?.integerValue == badCase.status, "a problem body")
            if !badCase.fields.isEmpty { #expect(reply.fields == badCase.fields, "\(reply.text)") }
            #expect(try await fixture.counts() == before)
        }
    }

    @Test("credentials: missing, malformed, wrong, revoked; content type")
    func credentials() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            try await fixture.addChannel(boundTo: "g1")
            let other = APIKeyToken.generate()
            let wrongSecret = "sck_\(fixture.token.prefix)_" + String(repeating: "0", count: 64)
            let cases: [(String, HTTPHeaders, Int)] = [
                ("no Authorization", ["Content-Type": "application/json"], 401),
                ("basic auth", ["Authorization": "Basic Zm9vOmJhcg==", "Content-Type": "application/json"], 401),
                ("not a key", ["Authorization": "Bearer hunter2", "Content-Type": "application/json"], 401),
                ("unknown key", ["Authorization": "Bearer \(other.text)", "Content-Type": "application/json"], 401),
                ("right prefix, wrong secret", ["Authorization": "Bearer \(wrongSecret)", "Content-Type": "application/json"], 401),
                ("text/plain", ["Authorization": "Bearer \(fixture.token.text)", "Content-Type": "text/plain"], 415),
                ("no content type", ["Authorization": "Bearer \(fixture.token.text)"], 415),
            ]
            let before = try await fixture.counts()
            for (name, headers, status) in cases {
                let reply = await fixture.post(IngestRefusalTests.valid, headers: headers)
                #expect(reply.status == status, "\(name): \(reply.text)")
                #expect(!reply.text.contains(fixture.token.text) && !reply.text.contains(wrongSecret), "\(name): no secret echoed")
            }
            #expect(try await fixture.counts() == before)

            _ = try await APIKeyStore(pool: fixture.pool, keyring: nil).revoke(name: "feed-a")
            // The key was found (and kept) for the wrong-secret case above: a revocation takes
            // effect once the kept copy is older than the cache's lifetime.
            fixture.clock.advance(by: .seconds(APIKeyCache.lifetime))
            let revoked = await fixture.post(IngestRefusalTests.valid)
            #expect(revoked.status == 401)
            #expect(revoked.json["detail"]?.stringValue?.contains("revoked") == true)
            #expect(try await fixture.counts() == before)
            #expect(!fixture.logSink.lines.joined().contains(fixture.token.text), "the key never reaches the log")
        }
    }

    @Test("signed keys: good, missing, wrong and expired signatures")
    func signatures() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let signed = try await APIKeyStore(pool: fixture.pool, keyring: nil).create(name: "feed-signed", signed: true)
            let secret = try #require(signed.signingSecret)
            let body = Array(IngestRefusalTests.valid.utf8)
            let now = Int(fixture.clock.now().timeIntervalSince1970)
            func headers(timestamp: Int?, signature: String?) -> HTTPHeaders {
                var headers: HTTPHeaders = ["Authorization": "Bearer \(signed.token.text)", "Content-Type": "application/json"]
                if let timestamp { headers[RequestSignature.timestampHeader] = String(timestamp) }
                if let signature { headers[RequestSignature.signatureHeader] = signature }
                return headers
            }
            let otherSecret = SigningSecret.generate()
            let cases: [(String, HTTPHeaders, String)] = [
                ("unsigned", headers(timestamp: nil, signature: nil), "requires signed requests"),
                ("no timestamp", headers(timestamp: nil, signature: RequestSignature.sign(body: body, timestamp: now, secret: secret)), "requires signed"),
                ("other secret", headers(timestamp: now, signature: RequestSignature.sign(body: body, timestamp: now, secret: otherSecret)), "does not match"),
                ("other body", headers(timestamp: now, signature: RequestSignature.sign(body: body + [32], timestamp: now, secret: secret)), "does not match"),
                ("expired", headers(timestamp: now - 301, signature: RequestSignature.sign(body: body, timestamp: now - 301, secret: secret)), "300 seconds"),
                ("future", headers(timestamp: now + 301, signature: RequestSignature.sign(body: body, timestamp: now + 301, secret: secret)), "300 seconds"),
                ("garbage", headers(timestamp: now, signature: "v1=zz"), "must be v1="),
            ]
            let before = try await fixture.counts()
            for (name, headers, detail) in cases {
                let reply = await fixture.post(body, headers: headers)
                #expect(reply.status == 401, "\(name): \(reply.text)")
                #expect(reply.json["detail"]?.stringValue?.contains(detail) == true, "\(name): \(reply.text)")
            }
            #expect(try await fixture.counts() == before)

            let good = await fixture.post(body, headers: headers(
                timestamp: now - 299, signature: RequestSignature.sign(body: body, timestamp: now - 299, secret: secret)))
            #expect(good.status == 202, "\(good.text)")
            let feed = try await fixture.pool.query("SELECT feed FROM events").first?.decode("feed", as: String.self)
            #expect(feed == "feed-signed", "the key's name is the feed")
        }
    }

    @Test("over a real HTTP server: oversized body 413, then a good request 202")
    func overHTTP() async throws {
        try await IngestFixture.with(configure: { $0.maximumBodyBytes = 4_096 }) { fixture in
            try await fixture.addGame("g1")
            let server = HTTPServer(
                configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, maxBodyBytes: 1 << 20, threadCount: 2),
                router: fixture.router, logger: Logger(label: "http", level: .warning))
            try server.start()
            let shutdown = ShutdownSignal()
            let running = Task { try await server.run(until: shutdown) }
            defer { shutdown.trigger() }
            let client = EventsClient(baseURL: try #require(URL(string: "http://127.0.0.1:\(server.port)")), token: fixture.token.text)

            let before = try await fixture.counts()
            let big = EventJSON.event(id: "big", seq: 1, extra: "\"player\": \"\(String(repeating: "p", count: 5_000))\"")
            let tooLarge = try await client.send(body: Array(big.utf8), now: fixture.clock.now())
            #expect(tooLarge.status == 413)
            #expect(try await fixture.counts() == before)

            let accepted = try await client.send(body: Array(IngestRefusalTests.valid.utf8), now: fixture.clock.now())
            #expect(accepted.status == 202, "\(String(decoding: accepted.body, as: UTF8.self))")
            let report = try JSONDecoder().decode(IngestReport.self, from: Data(accepted.body))
            #expect(report.results == [IngestReport.Result(id: "ok", outcome: .accepted)])
            shutdown.trigger()
            try await running.value
        }
    }
}
