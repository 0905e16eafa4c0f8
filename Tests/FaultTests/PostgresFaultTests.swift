import Foundation
import Postgres
import Testing
import TestSupport

/// The guarantee when Postgres stalls or goes away, through the built binary on a cluster of
/// the test's own: while it is down nothing hangs — `/readyz`, ingest and `/v1/stats` answer
/// 503 problem+json, `/metrics` answers with its last figures — and once it is back every
/// channel shows its game's newest state, every alert announced exactly once.
///
/// Time is compressed through settings: a 1 s statement timeout (so 1 s for a pooled
/// connection, 2 s for an answer) and a 1 s connect timeout. The promise checked is "answers
/// while Postgres is still down", with the outage many times longer than any deadline.
@Suite("Fault suite: Postgres stalled or stopped", .serialized)
struct PostgresFaultTests {
    static let deadlines = ["SCORECAST_DATABASE_STATEMENT_TIMEOUT_MS": "1000", "SCORECAST_DATABASE_CONNECT_TIMEOUT_SECONDS": "1"]

    @Test("Postgres SIGSTOP 15 s: nothing hangs, nothing is lost, back within seconds")
    func aFrozenPostgres() async throws {
        try await outage("Postgres SIGSTOP 15 s", lasting: .seconds(15), begin: { try $0.freeze() }, end: { $0.thaw() })
    }

    @Test("Postgres stopped 20 s: nothing hangs, nothing is lost, back within seconds")
    func aStoppedPostgres() async throws {
        try await outage(
            "Postgres stopped 20 s", lasting: .seconds(20), begin: { $0.server.stop() }, end: { _ = try await $0.server.start() })
    }

    @Test("At the default settings a frozen Postgres costs a request at most its database wait: 503 with Retry-After, then nothing lost")
    func aFrozenPostgresAtTheDefaults() async throws {
        try await StoppablePostgres.with { postgres in
            try await FaultBed.with(database: .on(postgres.configuration)) { bed in
                // No database timeouts set: the defaults are what is judged.
                let settings = try #require(try await bed.e2e.json("config", "--json") as? [[String: Any]])
                let waitSetting = try #require(settings.first { $0["name"] as? String == "SCORECAST_DATABASE_REQUEST_TIMEOUT_MS" })
                let waitText = try #require(waitSetting["value"] as? String)
                let limit = Duration.milliseconds(try #require(Int(waitText)))
                let (server, started) = try await bed.serve()
                let url = try #require(started)
                for game in FaultBed.games {
                    try await bed.post(url, [FaultBed.event(game, seq: 1, player: "\(game)-Saka", home: 1)])
                }
                try await eventually("goal 1 is announced everywhere") { try await bed.caughtUp(home: 1) }
                let channelsTarget = "/v1/games/g0/channels?bundle-id=com.example.live"
                #expect(try await Self.get(url, channelsTarget).status == 200)
                #expect(try await Self.get(url, "/v1/stats").status == 200)
                let goals = FaultBed.games.map { FaultBed.event($0, seq: 2, player: "\($0)-Havertz", home: 2) }

                try postgres.freeze()
                // Should a request wait out the stall, the freeze ends after 4× the limit, so
                // the test fails on the answer's lateness instead of hanging.
                let thaw = Task {
                    try? await Task.sleep(for: limit * 4)
                    postgres.thaw()
                }
                async let ingest = Self.timed { try await Self.post(url, goals, key: bed.key) }
                async let stats = Self.timed { try await Self.get(url, "/v1/stats") }
                async let channels = Self.timed { try await Self.get(url, channelsTarget) }
                let answers = try await [("ingest", ingest), ("stats", stats), ("channels", channels)]
                thaw.cancel()
                postgres.thaw()

                for (name, (answer, took)) in answers {
                    #expect(answer.status == 503 && answer.contentType == "application/problem+json", "\(name): \(answer)")
                    #expect(answer.retryAfter.flatMap(Int.init) ?? 0 >= 1, "\(name) says when to retry: \(answer)")
                    #expect(took < limit * 3, "\(name) answered in \(took), the database wait is \(limit)")
                    print("STALL ANSWER | \(name) | \(answer.status) in \(took) (database wait \(limit))")
                }
                // The feed retries what was refused, as its 503 asked: nothing it was told was
                // stored is lost, and the goals go out once each.
                try await eventually("the feed's retry is stored") { try await Self.post(url, goals, key: bed.key).status == 202 }
                try await eventually("every channel shows its newest state") { try await bed.caughtUp(home: 2) }
                for game in FaultBed.games {
                    let verdict = try bed.verdict(game, home: 2, players: ["\(game)-Saka", "\(game)-Havertz"])
                    #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(verdict)")
                }
                #expect(try await Self.get(url, channelsTarget).status == 200)
                await bed.stop(server)
            }
        }
    }

    /// What the API answered while Postgres was down.
    struct Answer {
        var status: Int
        var contentType: String
        var body: String
        var retryAfter: String?
    }

    /// `request`'s answer and how long it took.
    private static func timed(_ request: () async throws -> Answer) async throws -> (Answer, Duration) {
        let began = ContinuousClock.now
        let answer = try await request()
        return (answer, ContinuousClock.now - began)
    }

    private func outage(
        _ fault: String, lasting duration: Duration,
        begin: (StoppablePostgres) async throws -> Void, end: (StoppablePostgres) async throws -> Void
    ) async throws {
        try await StoppablePostgres.with { postgres in
            try await FaultBed.with(database: .on(postgres.configuration)) { bed in
                let (server, started) = try await bed.serve(extra: Self.deadlines)
                let url = try #require(started)
                for game in FaultBed.games {
                    try await bed.post(url, [FaultBed.event(game, seq: 1, player: "\(game)-Saka", home: 1)])
                }
                try await eventually("goal 1 is announced everywhere") { try await bed.caughtUp(home: 1) }
                let before = try await Self.get(url, "/metrics")
                let refreshedBefore = try #require(Self.gauge("scorecast_database_gauges_refreshed_timestamp_seconds", in: before.body))
                #expect(refreshedBefore > 1_700_000_000, "a Unix time, not a constant: \(refreshedBefore)")
                let goals = FaultBed.games.map { FaultBed.event($0, seq: 2, player: "\($0)-Havertz", home: 2) }
                let logLinesBefore = server.errorOutput.split(separator: "\n").count

                let began = ContinuousClock.now
                let faultBegan = Date().timeIntervalSince1970
                try await begin(postgres)
                async let ready = Self.get(url, "/readyz")
                async let ingest = Self.post(url, goals, key: bed.key)
                async let stats = Self.get(url, "/v1/stats")
                async let metrics = Self.get(url, "/metrics")
                let answers = try await (ready: ready, ingest: ingest, stats: stats, metrics: metrics)
                let answeredWhileDown = ContinuousClock.now < began + duration
                try await Task.sleep(until: began + duration)
                let logged = server.errorOutput.split(separator: "\n").dropFirst(logLinesBefore)
                try await end(postgres)
                let healed = Date().timeIntervalSince1970

                // The feed retries what was refused, as its 503 asked.
                try await eventually("the feed's retry is stored") { try await Self.post(url, goals, key: bed.key).status == 202 }
                try await eventually("every channel shows its newest state") { try await bed.caughtUp(home: 2) }
                // Once Postgres answers, a scrape reads the database gauges afresh: the time moves.
                try await eventually("the database gauges are read again") {
                    Self.gauge("scorecast_database_gauges_refreshed_timestamp_seconds", in: try await Self.get(url, "/metrics").body)
                        .map { $0 > refreshedBefore } ?? false
                }
                let verdicts = try FaultBed.games.map { game in
                    try bed.verdict(game, home: 2, players: ["\(game)-Saka", "\(game)-Havertz"])
                }

                #expect(answeredWhileDown, "every request was answered before Postgres came back")
                for (name, answer) in [("readyz", answers.ready), ("ingest", answers.ingest), ("stats", answers.stats)] {
                    #expect(answer.status == 503 && answer.contentType == "application/problem+json", "\(name): \(answer)")
                }
                #expect(answers.metrics.status == 200, "\(answers.metrics)")
                // The database gauges are the last ones read, and say so.
                #expect(Self.gauge("scorecast_database_gauges_refreshed_timestamp_seconds", in: answers.metrics.body) == refreshedBefore)
                for verdict in verdicts {
                    #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(verdict)")
                }
                // APNs was healthy throughout: the outage cost each channel exactly the one
                // broadcast of goal 2, none failed.
                #expect(bed.failedSends(since: faultBegan).isEmpty, "no send failed: \(bed.failedSends(since: faultBegan).count)")
                for game in FaultBed.games {
                    #expect(bed.sends(game, since: faultBegan).count == 1, "\(game): \(bed.sends(game, since: faultBegan).count) sends since the fault began")
                }
                // Repeated failures are summarised: a few lines per cause, not thousands.
                #expect(logged.count < 100, "\(logged.count) log lines during the outage:\n\(logged.prefix(40).joined(separator: "\n"))")
                print("LOG LINES | \(fault) | \(logged.count) lines on stderr during the outage")
                DeliveryFaultTests.report(fault, verdicts, recoveredFrom: healed)
                await bed.stop(server)
            }
        }
    }

    private static func get(_ url: String, _ target: String) async throws -> Answer {
        answer(try await TestClient.live(url).get(target))
    }

    private static func post(_ url: String, _ events: [String], key: String) async throws -> Answer {
        answer(try await TestClient.live(url).execute(
            .post, "/v1/events", headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
            body: Array(#"{"events": [\#(events.joined(separator: ","))]}"#.utf8)))
    }

    private static func answer(_ response: TestResponse) -> Answer {
        Answer(
            status: response.status, contentType: response.headers["content-type"] ?? "", body: String(decoding: response.body, as: UTF8.self),
            retryAfter: response.headers["retry-after"])
    }

    /// The value of an unlabelled gauge in Prometheus text.
    private static func gauge(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }
}
