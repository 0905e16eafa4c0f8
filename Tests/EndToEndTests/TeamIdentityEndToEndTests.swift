import Foundation
import HTTPServer
import Testing
import TestSupport

/// A team's code and colours as an app reads them, through the built binary: registered with
/// `games add`, filled in from the feed's `teams`, fallen back where neither gave them; a bad
/// code refused by path with nothing written; a goal without a short name counted in `/metrics`.
@Suite("End to end: team identity from the registration and the feed")
struct TeamIdentityEndToEndTests {
    static func event(_ id: String, game: String, seq: Int, kind: String, _ extra: String) -> String {
        #"{"id": "\#(id)", "game": "\#(game)", "seq": \#(seq), "occurredAt": "2025-11-29T20:00:00Z", "kind": "\#(kind)"\#(extra)}"#
    }

    @Test("GET /v1/games answers each team's code and colours: registered, else the feed's, else the fallbacks")
    func teamsThroughTheAPI() async throws {
        let setup = try await IngestEndToEndTests.Setup.make()
        do {
            let created = try await ScorecastProcess.run(["keys", "create", "--name", "feed-teams"], environment: setup.environment)
            let token = try #require(IngestEndToEndTests.tokens(in: created.stdout).first, "\(created.stderr)")
            let added = try await ScorecastProcess.run([
                "games", "add", "--id", "ars-che", "--league", "EPL", "--home", "Arsenal", "--away", "Chelsea",
                "--starts-at", "2025-11-29T20:00:00Z", "--home-colours", "#EF0107",
            ], environment: setup.environment)
            #expect(added.code == 0, "\(added.stderr)")

            var environment = setup.environment
            environment["SCORECAST_HTTP_PORT"] = "0"
            environment["SCORECAST_ROLES"] = "api"
            let server = try ScorecastProcess(["serve"], environment: environment)
            let line = try await server.waitForLine(containing: "HTTP API listening")
            let url = try #require(line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) }, "\(line)")
            func post(_ body: String) async throws -> (status: Int, json: [String: Any]) {
                let answer = try await TestClient.live(url).execute(
                    .post, "/v1/events", headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                    body: Array(body.utf8))
                return (answer.status, try jsonObject(answer.body))
            }
            func game(_ id: String) async throws -> [String: Any] {
                let answer = try await TestClient.live(url).get("/v1/games/" + id)
                #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
                return try jsonObject(answer.body)
            }

            // A bad code is refused by its path, and nothing of the event is written.
            let refused = try await post(Self.event("e0", game: "ars-che", seq: 1, kind: "scheduled", #", "teams": {"home": {"code": "ARSE"}}"#))
            #expect(refused.status == 422)
            #expect((refused.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "teams.home.code", "\(refused.json)")
            #expect(try await game("ars-che")["home"] as? [String: String] == [
                "name": "Arsenal", "abbreviation": "ARS", "primaryColour": "#EF0107", "secondaryColour": "#FFFFFF",
            ])

            let teams = ##", "teams": {"home": {"code": "afc", "primaryColour": "#000000", "secondaryColour": "#063672"}, "away": {"code": "CHE", "primaryColour": "#034694"}}"##
            let accepted = try await post(Self.event("e1", game: "ars-che", seq: 1, kind: "scheduled", teams))
            #expect(accepted.status == 202, "\(accepted.json)")
            // The registered primary colour wins; the feed fills the code and secondary colour.
            let registered = try await game("ars-che")
            #expect(registered["home"] as? [String: String] == [
                "name": "Arsenal", "abbreviation": "AFC", "primaryColour": "#EF0107", "secondaryColour": "#063672",
            ])
            #expect(registered["away"] as? [String: String] == [
                "name": "Chelsea", "abbreviation": "CHE", "primaryColour": "#034694", "secondaryColour": "#FFFFFF",
            ])

            // A game the feed created, with neither names nor identity, and a goal with only a full name.
            let goal = try await post(Self.event("e2", game: "feed-only", seq: 1, kind: "score", #", "team": "away", "player": "Cole Palmer", "scoreboard": {"away": 1}"#))
            #expect(goal.status == 202, "\(goal.json)")
            let listed = try await TestClient.live(url).get("/v1/games")
            let games = try #require(try jsonObject(listed.body)["games"] as? [[String: Any]])
            let feedOnly = try #require(games.first { $0["id"] as? String == "feed-only" })
            #expect(feedOnly["away"] as? [String: String] == [
                "name": "Away", "abbreviation": "AWA", "primaryColour": "#8E8E93", "secondaryColour": "#FFFFFF",
            ])
            #expect((games.first { $0["id"] as? String == "ars-che" }?["home"] as? [String: String])?["abbreviation"] == "AFC")

            let metrics = String(decoding: try await TestClient.live(url).get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"scorecast_events_without_short_name_total{feed="feed-teams"} 1"#), "\(metrics)")

            let shown = try await ScorecastProcess.run(["games", "show", "ars-che", "--json"], environment: setup.environment)
            let document = try jsonObject(Array(shown.stdout.utf8))
            #expect(document["home"] as? [String: String] == ["code": "AFC", "primaryColour": "#EF0107", "secondaryColour": "#063672"])

            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")
        } catch {
            await setup.close()
            throw error
        }
        await setup.close()
    }
}
