import APNsCore
import DeliveryEngine
import Foundation
import HTTPServer
import JSON
import Lifecycle
import Postgres
import Registry
import ScorecastCore
import Testing
import TestSupport

@Suite("POST /v1/events: outcomes and outbox rows")
struct IngestEndpointTests {
    @Test("accepted, then duplicate, then stale; events stored with their outcome")
    func outcomes() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")

            let first = await fixture.post(EventJSON.event(id: "e2", seq: 2, kind: "start"))
            #expect(first.status == 202, "\(first.text)")
            #expect(first.outcomes == ["e2": "accepted"])
            #expect(first.json["accepted"]?.integerValue == 1)
            #expect(first.json["duplicates"]?.integerValue == 0)
            #expect(first.json["stale"]?.integerValue == 0)

            let again = await fixture.post(EventJSON.event(id: "e2", seq: 2, kind: "start"))
            #expect(again.status == 202)
            #expect(again.outcomes == ["e2": "duplicate"])
            #expect(again.json["duplicates"]?.integerValue == 1)

            let older = await fixture.post(EventJSON.event(id: "e1", seq: 1, kind: "score", scoreboard: #"{"home": 5}"#))
            #expect(older.outcomes == ["e1": "stale"])
            #expect(older.json["stale"]?.integerValue == 1)

            let rows = try await fixture.pool.query("SELECT feed_event_id, outcome, feed, seq FROM events ORDER BY id")
            #expect(try rows.map { try $0.decode("feed_event_id", as: String.self) } == ["e2", "e1"])
            #expect(try rows.map { try $0.decode("outcome", as: String.self) } == ["accepted", "stale"])
            #expect(try rows.allSatisfy { try $0.decode("feed", as: String.self) == "feed-a" })
            let game = try #require(try await fixture.pool.query("SELECT applied_seq, status, state FROM games WHERE id = 'g1'").first)
            #expect(try game.decode("applied_seq", as: Int.self) == 2)
            #expect(try game.decode("status", as: String.self) == "live")
            let state = try GameState(jsonValue: try JSONParser().parse(try game.decode("state", as: PostgresJSON.self).bytes))
            #expect(state.homeScore == 0, "the stale score changed nothing")
        }
    }

    @Test("a batch: per-game seq order, mixed outcomes in request order, totals")
    func batchOutcomes() async throws {
        try await IngestFixture.with { fixture in
            _ = await fixture.post(EventJSON.event(id: "old", game: "g2", seq: 5))
            let reply = await fixture.post(EventJSON.batch([
                EventJSON.event(id: "b", game: "g1", seq: 2, kind: "score", scoreboard: #"{"home": 1}"#),
                EventJSON.event(id: "a", game: "g1", seq: 1, kind: "start"),
                EventJSON.event(id: "old", game: "g2", seq: 6),
                EventJSON.event(id: "c", game: "g2", seq: 4),
            ]))
            #expect(reply.status == 202, "\(reply.text)")
            #expect((reply.json["results"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } == ["b", "a", "old", "c"])
            #expect(reply.outcomes == ["a": "accepted", "b": "accepted", "old": "duplicate", "c": "stale"])
            #expect(reply.json["accepted"]?.integerValue == 2)
            let seqs = try await fixture.pool.query("SELECT id, applied_seq FROM games ORDER BY id")
            #expect(try seqs.map { try $0.decode("applied_seq", as: Int.self) } == [2, 5])
        }
    }

    @Test("every active bound channel gets one outbox row with the rendered payload")
    func outboxRowPerChannel() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let first = try await fixture.addChannel(boundTo: "g1")
            let second = try await fixture.addChannel(boundTo: "g1")
            let retired = try await fixture.addChannel(boundTo: "g1", status: "retiring")
            try await fixture.addGame("other")
            let elsewhere = try await fixture.addChannel(boundTo: "other")

            fixture.clock.advance(by: .seconds(30))
            let reply = await fixture.post(EventJSON.event(
                id: "goal", seq: 3, at: 30, kind: "score", scoreboard: #"{"home": 1, "away": 0, "period": "1H", "clock": "12'"}"#,
                extra: #""team": "home", "player": "Saka", "description": "Saka scores""#))
            #expect(reply.status == 202, "\(reply.text)")
            let eventID = try #require(try await fixture.eventID("goal"))

            for channel in [first, second] {
                let row = try #require(try await fixture.outbox(channel))
                let aps = row.aps
                #expect(aps["event"]?.stringValue == "update")
                #expect(aps["timestamp"]?.integerValue == 1_764_450_030)
                #expect(row.payloadTimestamp == 1_764_450_030)
                #expect(aps["stale-date"]?.integerValue == 1_764_450_030 + 600, "football staleness")
                #expect(aps["dismissal-date"] == nil)
                let state = try #require(aps["content-state"])
                #expect(state["homeScore"]?.integerValue == 1)
                #expect(state["awayScore"]?.integerValue == 0)
                #expect(state["period"]?.stringValue == "1H")
                #expect(state["clock"]?["label"]?.stringValue == "12'")
                #expect(state["status"]?.stringValue == "live")
                #expect(state["lastEvent"]?["player"]?.stringValue == "Saka")
                #expect(state["updatedAt"] == .integer(1_764_450_030 - 978_307_200), "reference-date encoding")
                #expect(aps["alert"] == nil, "the state is stored without its alert")
                #expect(row.alerts.count == 1 && row.alerts.first?["key"]?.stringValue == String(eventID))
                let alert = try #require(row.headAlert)
                #expect(alert["title"]?["loc-key"]?.stringValue != nil)
                #expect(alert["sound"]?.stringValue == "default")
                #expect(aps["relevance-score"]?.doubleValue == 100)
                #expect(row.priority == 10)
                #expect(row.alerting)
                #expect(row.eventIDs == [eventID])
                #expect(row.coalesced == 0)
                #expect(row.version == 1)
                #expect(row.attempts == 0)
                #expect(row.dueAt == fixture.clock.now(), "alerting: due at once")
                #expect(row.firstIngestedAt == fixture.clock.now())
                // The stored bytes are exactly what the renderer checked for a broadcast.
                let payload = try LiveActivityPayload(jsonValue: row.payload)
                #expect(try payload.encode(for: .broadcast) == row.payloadBytes)
            }
            #expect(try await fixture.outbox(retired) == nil, "only active channels")
            #expect(try await fixture.outbox(elsewhere) == nil, "only channels bound to the game")
        }
    }

    @Test("two events before a send coalesce into one row: newest state, alert and priority kept")
    func coalescing() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")

            fixture.clock.advance(by: .seconds(10))
            _ = await fixture.post(EventJSON.event(id: "goal", seq: 1, at: 10, kind: "score", scoreboard: #"{"home": 1}"#, extra: #""team": "home""#))
            let goalRow = try #require(try await fixture.outbox(channel))
            fixture.clock.advance(by: .seconds(2))
            let tick = await fixture.post(EventJSON.event(id: "tick", seq: 2, at: 12, kind: "clock", scoreboard: #"{"clock": "13'"}"#))
            #expect(tick.status == 202)

            let count = try await fixture.pool.query("SELECT count(*) AS n FROM outbox").first?.decode("n", as: Int.self)
            #expect(count == 1)
            let row = try #require(try await fixture.outbox(channel))
            #expect(row.version == 2)
            #expect(row.coalesced == 1)
            #expect(row.priority == 10, "the goal's priority stays")
            #expect(row.alerting)
            #expect(row.aps["alert"] == goalRow.aps["alert"], "the goal's alert rides on the newer state")
            #expect(row.aps["content-state"]?["clock"]?["label"]?.stringValue == "13'")
            #expect(row.aps["content-state"]?["homeScore"]?.integerValue == 1)
            #expect(row.aps["timestamp"]?.integerValue == 1_764_450_012)
            #expect(row.eventIDs == [try #require(try await fixture.eventID("goal")), try #require(try await fixture.eventID("tick"))])
            #expect(row.firstIngestedAt == goalRow.firstIngestedAt, "queue time of the oldest update")
            #expect(row.dueAt == goalRow.dueAt, "the earlier due time")
        }
    }

    @Test("each channel is rendered with its own app's settings; an app with a broken mapping is skipped")
    func perAppRendering() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let standard = try await fixture.addChannel(boundTo: "g1")
            let customApp: Int64 = try #require(try await fixture.pool.query("""
                INSERT INTO apps (bundle_id, environment, team_id, key_id, key_path, date_encoding, content_state_mapping,
                                  alert_style, alert_sound, dismissal_delay_seconds)
                VALUES ('com.example.custom', 'sandbox', 'TEAM123456', 'KEY1234567', '/keys/b.p8', 'unix-seconds',
                        '{"rename": {"homeScore": "home", "awayScore": "away"}, "omit": ["extra"]}', 'plain', NULL, 0)
                RETURNING id
                """).first).decode("id")
            let custom = try await fixture.addChannel(boundTo: "g1", appID: customApp)
            let brokenApp: Int64 = try #require(try await fixture.pool.query("""
                INSERT INTO apps (bundle_id, environment, team_id, key_id, key_path, content_state_mapping)
                VALUES ('com.example.broken', 'sandbox', 'TEAM123456', 'KEY1234567', '/keys/c.p8', '{"rename": {"nope": "x"}}')
                RETURNING id
                """).first).decode("id")
            let broken = try await fixture.addChannel(boundTo: "g1", appID: brokenApp)

            let reply = await fixture.post(EventJSON.event(
                id: "goal", seq: 1, at: 5, kind: "score", scoreboard: #"{"home": 1}"#, extra: #""team": "home""#))
            #expect(reply.status == 202, "\(reply.text)")

            let plainRow = try #require(try await fixture.outbox(standard))
            let plain = plainRow.aps
            #expect(plain["content-state"]?["homeScore"]?.integerValue == 1)
            #expect(plain["content-state"]?["extra"] != nil)
            #expect(plainRow.headAlert?["title"]?["loc-key"] != nil)

            let mappedRow = try #require(try await fixture.outbox(custom))
            let mapped = mappedRow.aps
            let state = try #require(mapped["content-state"])
            #expect(state["home"]?.integerValue == 1 && state["away"]?.integerValue == 0)
            #expect(state["homeScore"] == nil && state["extra"] == nil)
            #expect(state["updatedAt"] == .integer(1_764_450_005), "unix-seconds dates")
            #expect(mappedRow.headAlert?["title"]?.stringValue != nil, "plain-text alert")
            #expect(mappedRow.headAlert?["sound"] == nil, "silent alerts")

            #expect(try await fixture.outbox(broken) == nil)
            #expect(fixture.logSink.lines.contains { $0.contains("invalid content-state mapping") && $0.contains("com.example.broken") })
        }
    }

    @Test("routine updates are spaced from the channel's last send")
    func routineShaping() async throws {
        try await IngestFixture.with(configure: { $0.shaping = ShapingPolicy(routineInterval: 10) }) { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            let neverSent = try await fixture.addChannel(boundTo: "g1")
            let sentAt = fixture.clock.now().addingTimeInterval(-4)
            // What a worker records on the channel after a successful send (failed ones leave it).
            try await fixture.pool.execute("UPDATE channels SET last_sent_at = \(sentAt) WHERE id = \(channel)")
            _ = await fixture.post(EventJSON.event(id: "tick", seq: 1, kind: "clock", scoreboard: #"{"clock": "1'"}"#))
            let spaced = try #require(try await fixture.outbox(channel))
            #expect(spaced.priority == 5)
            #expect(!spaced.alerting)
            #expect(spaced.aps["alert"] == nil)
            #expect(spaced.dueAt == sentAt.addingTimeInterval(10), "last successful send + interval")
            #expect(try #require(try await fixture.outbox(neverSent)).dueAt == fixture.clock.now())

            // An alerting event pulls the row forward.
            _ = await fixture.post(EventJSON.event(id: "goal", seq: 2, kind: "score", scoreboard: #"{"away": 1}"#, extra: #""team": "away""#))
            let pulled = try #require(try await fixture.outbox(channel))
            #expect(pulled.dueAt == fixture.clock.now())
            #expect(pulled.priority == 10)
        }
    }

    @Test("final ends the activity with a dismissal date; the game is finished")
    func finalEnds() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            let reply = await fixture.post(EventJSON.event(id: "end", seq: 9, at: 100, kind: "final", scoreboard: #"{"home": 2, "away": 1}"#))
            #expect(reply.status == 202, "\(reply.text)")
            let row = try #require(try await fixture.outbox(channel))
            #expect(row.aps["event"]?.stringValue == "end")
            #expect(row.aps["dismissal-date"]?.integerValue == 1_764_450_100 + 600, "the app's dismissal delay")
            #expect(row.aps["stale-date"] == nil)
            #expect(row.aps["content-state"]?["status"]?.stringValue == "final")
            #expect(row.priority == 10)
            let game = try #require(try await fixture.pool.query("SELECT status, finished_at FROM games WHERE id = 'g1'").first)
            #expect(try game.decode("status", as: String.self) == "final")
            #expect(try !game.isNull("finished_at"))
        }
    }

    @Test("cancelled is a status the schema accepts")
    func cancelled() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            let reply = await fixture.post(EventJSON.event(id: "off", seq: 1, kind: "cancelled"))
            #expect(reply.status == 202, "\(reply.text)")
            #expect(try await fixture.outbox(channel)?.aps["event"]?.stringValue == "end")
            let status = try await fixture.pool.query("SELECT status FROM games WHERE id = 'g1'").first?.decode("status", as: String.self)
            #expect(status == "cancelled")
        }
    }

    @Test("a feed whose clock runs ahead: aps.timestamp is the server's time, the dismissal counts from it")
    func feedClockAhead() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            let reply = await fixture.post(EventJSON.event(id: "ahead", seq: 1, at: 300, kind: "score", scoreboard: #"{"home": 1}"#))
            #expect(reply.status == 202, "\(reply.text)")
            #expect(try await fixture.outbox(channel)?.payloadTimestamp == 1_764_450_000, "never ahead of the server's clock")
            // A final that reaches the server an hour after it happened still stays the app's 600 s.
            fixture.clock.advance(by: .seconds(3_600))
            _ = await fixture.post(EventJSON.event(id: "end", seq: 2, at: 400, kind: "final"))
            let end = try #require(try await fixture.outbox(channel))
            #expect(end.aps["dismissal-date"]?.integerValue == 1_764_450_000 + 3_600 + 600)
        }
    }

    @Test("an unknown field is ignored, logged by name and counted; the event is accepted")
    func unknownFieldsIgnored() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let reply = await fixture.post(EventJSON.event(
                id: "e1", seq: 1, kind: "score", scoreboard: #"{"home": 1, "possessionHome": 54}"#, extra: #""colour": "red", "team": "home""#))
            #expect(reply.status == 202, "\(reply.text)")
            #expect(try await fixture.eventID("e1") != nil)
            #expect(fixture.logSink.lines.contains {
                $0.contains("unknown event fields ignored") && $0.contains("colour,scoreboard.possessionHome") && $0.contains("feed-a")
            })
            #expect(fixture.metricsRegistry.render().contains(#"scorecast_event_fields_ignored_total{feed="feed-a"} 2"#))
        }
    }

    @Test("goals and cards without a shortName are counted: the lock screen shows the full name")
    func eventsWithoutShortName() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let replies = await [
                fixture.post(EventJSON.event(id: "a", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#, extra: #""team": "home", "player": "Bukayo Saka""#)),
                fixture.post(EventJSON.event(id: "b", seq: 2, kind: "score", scoreboard: #"{"home": 2}"#,
                                             extra: #""team": "home", "player": "Bukayo Saka", "shortName": "Saka""#)),
                fixture.post(EventJSON.event(id: "c", seq: 3, kind: "card", extra: #""team": "away", "player": "Cole Palmer", "card": "yellow""#)),
                fixture.post(EventJSON.event(id: "d", seq: 4, kind: "substitution", extra: #""team": "away", "player": "Cole Palmer""#)),
            ]
            #expect(replies.map(\.status) == [202, 202, 202, 202])
            #expect(fixture.metricsRegistry.render().contains(#"scorecast_events_without_short_name_total{feed="feed-a"} 2"#))
        }
    }

    @Test("timestamps never go backwards on a channel")
    func timestampsNeverGoBackwards() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let sentAhead = try await fixture.addChannel(boundTo: "g1", lastTimestamp: 1_764_450_500)
            let plain = try await fixture.addChannel(boundTo: "g1")
            fixture.clock.advance(by: .seconds(50))
            _ = await fixture.post(EventJSON.event(id: "late", seq: 1, at: 50))
            #expect(try await fixture.outbox(sentAhead)?.payloadTimestamp == 1_764_450_500)
            #expect(try await fixture.outbox(plain)?.payloadTimestamp == 1_764_450_050)
            // A newer seq carrying an older time keeps the pending row's timestamp.
            _ = await fixture.post(EventJSON.event(id: "earlier", seq: 2, at: 20))
            #expect(try await fixture.outbox(plain)?.payloadTimestamp == 1_764_450_050)
        }
    }

    @Test("a row being sent is merged into: its alert stays at the head for the send's completion to remove")
    func leasedRow() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            _ = await fixture.post(EventJSON.event(id: "goal", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#))
            try await fixture.pool.execute(
                "UPDATE outbox SET lease_owner = 'worker-1', lease_expires_at = now() + interval '30 seconds' WHERE channel_id = \(channel)")
            fixture.clock.advance(by: .seconds(1))
            _ = await fixture.post(EventJSON.event(id: "tick", seq: 2, at: 1, kind: "clock", scoreboard: #"{"clock": "2'"}"#))
            let row = try #require(try await fixture.outbox(channel))
            #expect(row.version == 2, "the worker's fenced completion will miss and leave it pending")
            #expect(row.coalesced == 1)
            #expect(row.aps["alert"] == nil)
            let goalID = try #require(try await fixture.eventID("goal"))
            #expect(row.alerts.map { $0["key"]?.stringValue } == [String(goalID)], "the goal's alert is on its way; its completion removes it")
            #expect(row.eventIDs == [goalID, try #require(try await fixture.eventID("tick"))])
            #expect(row.dueAt == fixture.clock.now().addingTimeInterval(10), "spaced from the send in flight")
            let lease = try await fixture.pool.query("SELECT lease_owner FROM outbox WHERE channel_id = \(channel)").first?
                .decode("lease_owner", as: String?.self)
            #expect(lease == "worker-1", "the lease stays with the worker")
        }
    }

    @Test("a lease is judged on the service clock, the one workers lease by, not on the database's clock")
    func leaseJudgedOnTheServiceClock() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            _ = await fixture.post(EventJSON.event(id: "goal", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#))
            // Leased for 30 s of the service clock, which stands about a year behind Postgres'
            // here: on the database's clock the lease ran out long ago.
            let leaseExpires = fixture.clock.now().addingTimeInterval(30)
            try await fixture.pool.execute(
                "UPDATE outbox SET lease_owner = 'worker-1', lease_expires_at = \(leaseExpires) WHERE channel_id = \(channel)")
            fixture.clock.advance(by: .seconds(1))
            _ = await fixture.post(EventJSON.event(id: "tick", seq: 2, at: 1, kind: "clock", scoreboard: #"{"clock": "2'"}"#))
            let row = try #require(try await fixture.outbox(channel))
            let goalID = try #require(try await fixture.eventID("goal"))
            #expect(row.alerts.map { $0["key"]?.stringValue } == [String(goalID)], "the goal's alert is in flight; its completion removes it")
            #expect(row.dueAt == fixture.clock.now().addingTimeInterval(10), "spaced from the send in flight")
        }
    }

    @Test("a newer update resets the attempts and backoff of a row that failed (retry state belongs to an attempt)")
    func backoffReset() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            _ = await fixture.post(EventJSON.event(id: "goal", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#))
            let retryAt = fixture.clock.now().addingTimeInterval(30)
            try await fixture.pool.execute(
                "UPDATE outbox SET attempts = 2, not_before = \(retryAt) WHERE channel_id = \(channel)")
            _ = await fixture.post(EventJSON.event(id: "goal2", seq: 2, kind: "score", scoreboard: #"{"home": 2}"#))
            let row = try #require(try await fixture.outbox(channel))
            #expect(row.attempts == 0)
            #expect(row.dueAt == fixture.clock.now())
            let kept = try await fixture.pool.query("SELECT not_before FROM outbox WHERE channel_id = \(channel)")[0]
            #expect(try kept.decode("not_before", as: Date?.self) == nil)
            #expect(row.aps["content-state"]?["homeScore"]?.integerValue == 2)
        }
    }

    @Test("NOTIFY scorecast_outbox after commit")
    func notifies() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            try await fixture.addChannel(boundTo: "g1")
            let channel = EventIngestor.notificationChannel
            let notifications = fixture.pool.listen(channel)
            let (status, heard) = try await withDeadline("the ingest's NOTIFY on \(channel)") {
                var iterator = notifications.makeAsyncIterator()
                // Once the subscription is active, the ingest's NOTIFY cannot be missed.
                while let event = try await iterator.next(), event != .listening {}
                let reply = await fixture.post(EventJSON.event(id: "n1", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#))
                while let event = try await iterator.next() {
                    if case .notification(let heard) = event, heard.payload.isEmpty { return (reply.status, heard.channel) }
                }
                return (reply.status, "")
            }
            #expect(status == 202)
            #expect(heard == channel)
        }
    }

    @Test("unknown games are created on the fly, or refused naming the field")
    func unknownGames() async throws {
        try await IngestFixture.with { fixture in
            let created = await fixture.post(EventJSON.event(id: "x", game: "new-game", seq: 1, kind: "start"))
            #expect(created.status == 202)
            let counts = try await fixture.counts()
            #expect(counts["games"] == 1)
        }
        try await IngestFixture.with(configure: { $0.createUnknownGames = false }) { fixture in
            try await fixture.addGame("known")
            let before = try await fixture.counts()
            let refused = await fixture.post(EventJSON.batch([
                EventJSON.event(id: "a", game: "known", seq: 1),
                EventJSON.event(id: "b", game: "missing", seq: 1),
            ]))
            #expect(refused.status == 422)
            #expect(refused.fields == ["events[1].game"])
            #expect(try await fixture.counts() == before)
            let single = await fixture.post(EventJSON.event(id: "c", game: "missing", seq: 1))
            #expect(single.fields == ["game"])
        }
    }

    @Test("a Live Activity over its budget is fitted, never refused: logged and counted")
    func oversizedRender() async throws {
        // Every change of statistics noticed at once, so that each event renders a content-state.
        try await IngestFixture.with(configure: { $0.notice = NoticePolicy(statisticsInterval: 0) }) { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            // Every event adds 16 sport-specific values; the state keeps them all.
            func extra(_ round: Int) -> String {
                let entries = (0..<16).map { index in
                let key = "k\(round)x\(index)_" + String(repeating: "k", count: 24)
                return "\"\(key)\": \"\(String(repeating: "v", count: 64))\""
            }
                return "{\"extra\": {" + entries.joined(separator: ", ") + "}}"
            }
            for round in 1...2 {
                let reply = await fixture.post(EventJSON.event(id: "s\(round)", seq: round, kind: "stats", scoreboard: extra(round)))
                #expect(reply.status == 202, "\(reply.text)")
            }
            let fitted = await fixture.post(EventJSON.batch([EventJSON.event(id: "s3", seq: 3, kind: "stats", scoreboard: extra(3))]))
            #expect(fitted.status == 202, "\(fitted.text)")
            let row = try #require(try await fixture.outbox(channel))
            // Long values are cut (at a character, with an ellipsis) before anything is dropped.
            let key = "k3x0_" + String(repeating: "k", count: 24)
            #expect(row.aps["content-state"]?["extra"]?[key]?.stringValue == String(repeating: "v", count: 15) + "…")
            #expect(try #require(row.aps["content-state"]).encoded().count <= ContentStateFit.budget)
            let lines = fixture.logSink.lines.filter { $0.contains("content-state cut to fit 4 KB") }
            #expect(lines.contains { $0.contains("s3") && $0.contains("steps=cut-texts") })
            #expect(fixture.metricsRegistry.render().contains(#"scorecast_content_states_fitted_total{feed="feed-a"} \#(lines.count)"#))
        }
    }

    @Test("a channel bound to two games, ingested at once for both: no update is lost")
    func sharedChannelConcurrently() async throws {
        // Every change of statistics noticed at once, so that every event writes the row.
        try await IngestFixture.with(configure: { $0.notice = NoticePolicy(statisticsInterval: 0) }) { fixture in
            try await fixture.addGame("g1")
            try await fixture.addGame("g2")
            let channel = try await fixture.addChannel(boundTo: "g1")
            try await fixture.pool.execute("INSERT INTO channel_bindings (channel_id, game_id) VALUES (\(channel), 'g2')")
            let rounds = 6
            for round in 1...rounds {
                async let first = fixture.post(EventJSON.event(id: "a\(round)", game: "g1", seq: round, kind: "score", scoreboard: "{\"home\": \(round)}"))
                async let second = fixture.post(EventJSON.event(id: "b\(round)", game: "g2", seq: round, kind: "stats", scoreboard: "{\"extra\": {\"round\": \(round)}}"))
                let replies = await [first, second]
                #expect(replies.map(\.status) == [202, 202], "\(replies.map(\.text))")
            }
            let row = try #require(try await fixture.outbox(channel))
            #expect(row.eventIDs.count == 2 * rounds, "every event's id is in the row")
            #expect(row.coalesced == 2 * rounds - 1)
            // One version per transaction that wrote the row: two posts of a round usually run in
            // two concurrent transactions, but group commit may put them in one.
            #expect((Int64(rounds)...Int64(2 * rounds)).contains(row.version), "version \(row.version)")
        }
    }

    @Test("an outbox row created meanwhile fails the version fence: the ingest retries and merges into it")
    func fenceConflictRetries() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            // Another writer's row, not committed yet: invisible to the ingest's read, but its
            // INSERT waits on it and then conflicts.
            let reply = try await fixture.post(
                EventJSON.event(id: "e1", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#),
                whileHolding: """
                    INSERT INTO outbox (channel_id, version, payload, payload_timestamp, priority, alerting, event_ids,
                                        first_ingested_at, due_at)
                    VALUES (\(channel), 1, convert_to('{"aps":{"content-state":{},"event":"update","timestamp":5}}', 'UTF8'),
                            5, 5, false, '{}', now(), now())
                    """,
                until: "the ingest waits on the uncommitted row")
            #expect(reply?.status == 202, "\(reply?.text ?? "")")
            let row = try #require(try await fixture.outbox(channel))
            #expect(row.version == 2, "merged into the row committed meanwhile")
            #expect(row.coalesced == 1)
            #expect(row.priority == 10)
            #expect(fixture.logSink.lines.contains { $0.contains("ingest transaction retried") })
        }
    }

    @Test("a row a completion settled meanwhile (same version, its sent alert gone) fails the fence: the ingest retries and no alert comes back")
    func rowSettledMeanwhileRetries() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            let channel = try await fixture.addChannel(boundTo: "g1")
            let first = await fixture.post(EventJSON.event(id: "e1", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#))
            #expect(first.status == 202, "\(first.text)")
            #expect(try await fixture.outbox(channel)?.alerts.count == 1)
            // A worker's completion that sent the first goal's alert and keeps the row, not
            // committed yet: it takes the alert off and leaves the version (only ingest bumps
            // it). The ingest reads the row as it was, with that alert.
            let reply = try await fixture.post(
                EventJSON.event(id: "e2", seq: 2, kind: "score", scoreboard: #"{"home": 2}"#),
                whileHolding: "UPDATE outbox SET alerts = '[]'::jsonb, alerting = false, priority = 5 WHERE channel_id = \(channel)",
                until: "the ingest's write waits on the settled row")
            #expect(reply?.status == 202, "\(reply?.text ?? "")")
            let row = try #require(try await fixture.outbox(channel))
            // Only the second goal waits: the first was announced, and is not queued again.
            #expect(row.alerts.count == 1, "\(row.alerts)")
            #expect(row.version == 2)
            #expect(fixture.logSink.lines.contains { $0.contains("ingest transaction retried") })
        }
    }

    @Test("the same event stored meanwhile by another transaction: the ingest retries and reports it a duplicate")
    func duplicateStoredMeanwhileRetries() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            try await fixture.addGame("g2")
            try await fixture.addChannel(boundTo: "g1")
            // The event id stored by another writer (for another game, whose lock the ingest does
            // not wait for), not committed yet: invisible to the ingest's look, but its insert
            // waits on the key and then collides.
            let reply = try await fixture.post(
                EventJSON.event(id: "e1", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#),
                whileHolding: """
                    INSERT INTO events (feed, feed_event_id, game_id, seq, kind, occurred_at, outcome, body)
                    VALUES ('feed-a', 'e1', 'g2', 1, 'score', now(), 'accepted', '{}')
                    """,
                until: "the ingest waits on the uncommitted event")
            #expect(reply?.status == 202, "\(reply?.text ?? "")")
            #expect(reply?.outcomes["e1"] == "duplicate", "\(reply?.text ?? "")")
            #expect(try await fixture.counts()["events"] == 1)
            #expect(fixture.logSink.lines.contains { $0.contains("ingest transaction retried") })
        }
    }

    @Test("two ingests of the same event at once: one accepted, one duplicate")
    func concurrentDuplicate() async throws {
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            try await fixture.addChannel(boundTo: "g1")
            for round in 1...5 {
                let body = EventJSON.event(id: "same-\(round)", seq: round, kind: "score", scoreboard: "{\"home\": \(round)}")
                async let first = fixture.post(body)
                async let second = fixture.post(body)
                let outcomes = [await first, await second].map { $0.outcomes["same-\(round)"] ?? "?" }.sorted()
                #expect(outcomes == ["accepted", "duplicate"])
            }
            // Also for a game neither request has seen.
            let body = EventJSON.event(id: "fresh", game: "brand-new", seq: 1, kind: "start")
            async let first = fixture.post(body)
            async let second = fixture.post(body)
            #expect([await first, await second].map { $0.outcomes["fresh"] ?? "?" }.sorted() == ["accepted", "duplicate"])
            #expect(try await fixture.counts()["events"] == 6)
        }
    }
}
