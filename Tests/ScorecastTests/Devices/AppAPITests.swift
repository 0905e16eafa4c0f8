import Clocks
@testable import Devices
import Foundation
import HTTPServer
import Postgres
@testable import Registry
import ScorecastCore
import Testing

@Suite("The app API (/v1/apps/{bundle-id}/…)")
struct AppAPITests {
    @Test func registerRefreshAndRead() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            let api = try await AppAPIHarness.make(fixture)
            let path = "/v1/apps/com.example.scores/devices/3F2504E0-4F89-11D3-9A0C-0305E82C3301"
            let body = #"{"environment": "sandbox", "pushToStartToken": "\#(String(repeating: "AB", count: 40))", "osVersion": "17.4", "frequentUpdates": false, "locale": "de_CH"}"#
            let created = try await api.call(.put, path, json: body)
            #expect(created.status == 201)
            #expect(created.json["supportsChannels"] as? Bool == false)
            #expect(created.json["frequentUpdates"] as? Bool == false)
            #expect(created.json["hasPushToStartToken"] as? Bool == true)
            #expect(created.json["pushToStartToken"] == nil, "tokens are not echoed")
            let refreshed = try await api.call(.put, path, json: body.replacingOccurrences(of: "17.4", with: "18.2"))
            #expect(refreshed.status == 200)
            #expect(refreshed.json["supportsChannels"] as? Bool == true)
            let stored = try #require(try await DeviceStore(pool: fixture.pool).find(bundleID: "com.example.scores", installID: "3F2504E0-4F89-11D3-9A0C-0305E82C3301"))
            #expect(stored.pushToStartToken == String(repeating: "ab", count: 40))
            #expect(stored.locale == "de_CH")
            #expect(stored.osVersion == "18.2")
            let read = try await api.call(.get, path)
            #expect(read.status == 200)
            #expect(read.json["osVersion"] as? String == "18.2")
        }
    }

    @Test func badFieldsAreNamed() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            let api = try await AppAPIHarness.make(fixture)
            let path = "/v1/apps/com.example.scores/devices/d1"
            let bad = try await api.call(.put, path, json: #"{"environment": "staging", "pushToStartToken": "xyz", "osVersion": "eighteen", "locale": "??"}"#)
            #expect(bad.status == 422)
            let fields = Set((bad.json["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String })
            #expect(fields == ["environment", "pushToStartToken", "osVersion", "locale"])
            let old = try await api.call(.put, path, json: #"{"environment": "sandbox", "pushToStartToken": "\#(AppAPIHarness.token(1))", "osVersion": "16.4"}"#)
            #expect(old.status == 422)
            #expect((old.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "pushToStartToken")
            let noApp = try await api.call(.put, path, json: #"{"environment": "production", "osVersion": "18.0"}"#)
            #expect(noApp.status == 422)
            #expect((noApp.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "environment")
            let missing = try await api.call(.put, path, json: #"{"environment": "sandbox"}"#)
            #expect(missing.status == 422)
            #expect((missing.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "osVersion")
            let unknown = try await api.call(.get, "/v1/apps/com.example.scores/devices/nobody/follows")
            #expect(unknown.status == 404)
        }
    }

    @Test func theClientKeyMustBeThisAppsAndLive() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            _ = try await fixture.addApp("com.example.other", environment: .sandbox)
            let api = try await AppAPIHarness.make(fixture)
            let path = "/v1/apps/com.example.scores/devices/d1"
            let body = #"{"environment": "sandbox", "osVersion": "18.0"}"#
            #expect(try await api.call(.put, path, json: body, headers: ["Content-Type": "application/json"]).status == 401)
            #expect(try await api.call(.put, path, json: body, key: "sck_000000000000_" + String(repeating: "0", count: 64)).status == 401)
            let wrongSecret = api.key.dropLast(4) + "0000"
            #expect(try await api.call(.put, path, json: body, key: String(wrongSecret)).status == 401)
            let (_, other) = try await ClientKeyStore(pool: fixture.pool).create(bundleID: "com.example.other", name: "ios")
            let foreign = try await api.call(.put, path, json: body, key: other.text)
            #expect(foreign.status == 401)
            #expect(foreign.headers["www-authenticate"] != nil)
            #expect(try await api.call(.put, path, json: body).status == 201)
            _ = try await ClientKeyStore(pool: fixture.pool).revoke(bundleID: "com.example.scores", name: "ios")
            #expect(try await api.call(.put, path, json: body).status == 401)
        }
    }

    @Test func perDeviceRateLimitWithAnInjectedClock() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            let clock = ManualServiceClock(Date(timeIntervalSince1970: 1_764_450_000))
            let api = try await AppAPIHarness.make(fixture, perMinute: 60, burst: 2, clock: clock)
            let path = try await api.register("d1")      // first token
            #expect(try await api.call(.get, path).status == 200)  // second
            let limited = try await api.call(.get, path)
            #expect(limited.status == 429)
            #expect(limited.headers["retry-after"] == "1")
            #expect(try await api.call(.get, "/v1/apps/com.example.scores/devices/d2").status == 404, "another device has its own bucket")
            clock.advance(by: .seconds(1))
            #expect(try await api.call(.get, path).status == 200)
        }
    }

    @Test func followAndUnfollow() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            let api = try await AppAPIHarness.make(fixture)
            let path = try await api.register("d1")
            #expect(try await api.call(.put, path + "/follows/team/Arsenal%20W.F.C.").status == 201)
            #expect(try await api.call(.put, path + "/follows/team/Arsenal%20W.F.C.").status == 204)
            #expect(try await api.call(.put, path + "/follows/league/EPL").status == 201)
            #expect(try await api.call(.put, path + "/follows/game/g1").status == 201)
            #expect(try await api.call(.put, path + "/follows/player/Saka").status == 404)
            #expect(try await api.call(.put, path + "/follows/game/bad%20id").status == 400)
            let listed = try await api.call(.get, path + "/follows")
            let follows = (listed.json["follows"] as? [[String: String]]) ?? []
            #expect(follows == [["kind": "game", "value": "g1"], ["kind": "league", "value": "EPL"], ["kind": "team", "value": "Arsenal W.F.C."]])
            #expect(try await api.call(.delete, path + "/follows/league/EPL").status == 204)
            #expect(try await api.call(.delete, path + "/follows/league/EPL").status == 404)
        }
    }

    @Test func activityTokensRotateAndEnd() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await fixture.addGame("g1")
            let api = try await AppAPIHarness.make(fixture)
            let path = try await api.register("d1", os: "17.5")
            let first = try await api.call(.put, path + "/activities/g1", json: #"{"pushToken": "\#(AppAPIHarness.token(7))"}"#)
            #expect(first.status == 200)
            #expect(first.json["replacedToken"] as? String == "no")
            let rotated = try await api.call(.put, path + "/activities/g1", json: #"{"pushToken": "\#(AppAPIHarness.token(8))"}"#)
            #expect(rotated.json["replacedToken"] as? String == "yes")
            let rows = try await fixture.pool.query("SELECT token, status FROM activity_tokens")
            #expect(rows.count == 1, "a rotated token replaces the old one")
            #expect(try rows[0].decode("token", as: String.self) == AppAPIHarness.token(8))
            #expect(try await api.call(.put, path + "/activities/nope", json: #"{"pushToken": "\#(AppAPIHarness.token(9))"}"#).status == 404)
            let badToken = try await api.call(.put, path + "/activities/g1", json: #"{"pushToken": "12"}"#)
            #expect(badToken.status == 422)
            #expect((badToken.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "pushToken")
            #expect(try await api.call(.delete, path + "/activities/g1").status == 204)
            #expect(try await fixture.pool.query("SELECT status FROM activity_tokens").first?.decode("status", as: String.self) == "ended")
        }
    }
}

@Suite("GET /v1/games")
struct GamesEndpointTests {
    @Test func oneGameWithThisAppsChannelAndETag() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp(environment: .sandbox)
            try await fixture.addGame("g1")
            let channel = try await fixture.registry().createChannel(gameID: "g1", app: app)
            let api = try await AppAPIHarness.make(fixture)
            let query = [("bundle-id", "com.example.scores"), ("environment", "sandbox")]
            let read = try await api.call(.get, "/v1/games/g1", query: query, headers: [:])
            #expect(read.status == 200)
            #expect(read.json["status"] as? String == "scheduled")
            // Nothing registered and no feed: every team still carries a code and both colours.
            #expect((read.json["home"] as? [String: String]) == ["name": "Arsenal", "abbreviation": "ARS", "primaryColour": "#8E8E93", "secondaryColour": "#FFFFFF"])
            #expect((read.json["score"] as? [String: Int]) == ["home": 0, "away": 0])
            #expect((read.json["channel"] as? [String: String]) == ["id": channel.listing.channel.apnsChannelID, "tier": "standard"])
            let etag = try #require(read.headers["etag"])
            let again = try await api.call(.get, "/v1/games/g1", query: query, headers: ["If-None-Match": etag])
            #expect(again.status == 304)
            #expect(again.headers["etag"] == etag)
            try await fixture.pool.execute("UPDATE games SET status = 'live' WHERE id = 'g1'")
            let changed = try await api.call(.get, "/v1/games/g1", query: query, headers: ["If-None-Match": etag])
            #expect(changed.status == 200)
            #expect(changed.headers["etag"] != etag)
            let plain = try await api.call(.get, "/v1/games/g1", headers: [:])
            #expect(plain.json["channel"] is NSNull)
            #expect(try await api.call(.get, "/v1/games/nope", headers: [:]).status == 404)
        }
    }

    @Test func theLightChannelForFrequentUpdatesOff() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp(environment: .production)
            try await fixture.addGame("g1")
            let standard = try await fixture.registry().createChannel(gameID: "g1", app: app)
            let light = try await fixture.registry().lightChannel(gameID: "g1", app: app)
            #expect(light.listing.channel.id != standard.listing.channel.id)
            let api = try await AppAPIHarness.make(fixture)
            let on = try await api.call(.get, "/v1/games/g1", query: [("bundle-id", "com.example.scores")], headers: [:])
            #expect((on.json["channel"] as? [String: String])?["id"] == standard.listing.channel.apnsChannelID)
            let off = try await api.call(.get, "/v1/games/g1", query: [("bundle-id", "com.example.scores"), ("frequent-updates", "false")], headers: [:])
            #expect((off.json["channel"] as? [String: String]) == ["id": light.listing.channel.apnsChannelID, "tier": "light"])
        }
    }

    @Test func theEnvironmentMayBeLeftOutWhenTheBundleHasOneApp() async throws {
        try await RegistryFixture.with { fixture in
            let sandbox = try await fixture.addApp(environment: .sandbox)
            try await fixture.addGame("g1")
            let channel = try await fixture.registry().createChannel(gameID: "g1", app: sandbox)
            let api = try await AppAPIHarness.make(fixture)
            let only = try await api.call(.get, "/v1/games/g1", query: [("bundle-id", "com.example.scores")], headers: [:])
            #expect(only.status == 200)
            #expect((only.json["channel"] as? [String: String]) == ["id": channel.listing.channel.apnsChannelID, "tier": "standard"])

            _ = try await fixture.addApp(environment: .production)
            let both = try await api.call(.get, "/v1/games/g1", query: [("bundle-id", "com.example.scores")], headers: [:])
            #expect(both.status == 400)
            #expect(both.json["detail"] as? String == "com.example.scores has an app in production and sandbox: add environment=sandbox or environment=production")
            #expect((both.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "environment")
            let chosen = try await api.call(.get, "/v1/games", query: [("bundle-id", "com.example.scores"), ("environment", "sandbox")], headers: [:])
            #expect(((chosen.json["games"] as? [[String: Any]])?.first?["channel"] as? [String: String])?["id"] == channel.listing.channel.apnsChannelID)
        }
    }

    @Test func listFilteredByLeagueTeamStatusAndDate() async throws {
        try await RegistryFixture.with { fixture in
            let day = try Date("2026-11-29T20:00:00Z", strategy: .iso8601)
            let games = GameStore(pool: fixture.pool)
            _ = try await games.add(GameDraft(id: "a", league: "EPL", homeTeam: "Arsenal", awayTeam: "Chelsea", startsAt: day))
            _ = try await games.add(GameDraft(id: "b", league: "EPL", homeTeam: "Spurs", awayTeam: "Arsenal", startsAt: day.addingTimeInterval(86_400)))
            _ = try await games.add(GameDraft(id: "c", league: "Liga", homeTeam: "Betis", awayTeam: "Sevilla", startsAt: day))
            try await fixture.pool.execute("UPDATE games SET status = 'live' WHERE id = 'c'")
            let api = try await AppAPIHarness.make(fixture)
            func ids(_ query: [(String, String)]) async throws -> [String] {
                let answer = try await api.call(.get, "/v1/games", query: query, headers: [:])
                return (answer.json["games"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            #expect(try await ids([]) == ["a", "c", "b"])
            #expect(try await ids([("league", "EPL")]) == ["a", "b"])
            #expect(try await ids([("team", "Arsenal")]) == ["a", "b"])
            #expect(try await ids([("status", "live")]) == ["c"])
            #expect(try await ids([("date", "2026-11-30")]) == ["b"])
            #expect(try await ids([("league", "EPL"), ("limit", "1")]) == ["a"])
            let bad = try await api.call(.get, "/v1/games", query: [("date", "tomorrow")], headers: [:])
            #expect(bad.status == 400)
            #expect((bad.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "date")
        }
    }
}
