import EndToEndSupport
import APNsSimulator
import Foundation
import Testing
import TestSupport

/// A paused app, seen and lifted as an admin would: through the built binary, `serve` sending
/// to the simulator over TLS.
@Suite("End to end: pause and resume", .serialized)
struct PauseResumeEndToEndTests {
    static func goal(_ seq: Int) -> String {
        #"{"id": "goal-\#(seq)", "game": "ars-che", "seq": \#(seq), "occurredAt": "2025-11-29T20:0\#(seq):00Z", "kind": "score", "team": "home", "player": "Saka", "scoreboard": {"home": \#(seq), "away": 0, "period": "1H", "clock": "1\#(seq)'"}}"#
    }

    static func post(_ url: String, key: String, _ body: String) async throws {
        let status = try await TestClient.live(url).execute(
            .post, "/v1/events", headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
            body: Array(body.utf8)).status
        #expect(status == 202)
    }

    /// What `/readyz`, `/v1/stats/live` and `/metrics` say about paused apps.
    static func pausedViews(_ url: String) async throws -> (readyz: [String], live: [String], metric: String?) {
        let ready = try await TestClient.live(url).get("/readyz")
        #expect(ready.status == 200, "a paused app does not make the process unready")
        let readyz = try jsonObject(ready.body)["pausedApps"] as? [String] ?? ["missing"]
        let live = try jsonObject(try await TestClient.live(url).get("/v1/stats/live").body)["pausedApps"] as? [[String: Any]] ?? []
        let metrics = String(decoding: try await TestClient.live(url).get("/metrics").body, as: UTF8.self)
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("scorecast_apps_paused{app=\"com.example.live\"}") }
        return (readyz, live.compactMap { $0["app"] as? String }, line.map { String($0.split(separator: " ").last ?? "") })
    }

    /// Overwrites the key file at `path` with another key's contents (the admin's mistake, or a
    /// revoked key): same ids, a signature APNs will not accept.
    static func replaceKey(at path: String, with other: TeamKeyFile) throws {
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: other.path, toPath: path)
    }

    @Test("refused credentials pause the app (shown in /readyz, /v1/stats/live, /metrics); resume and update lift it; updates then go out")
    func pauseAndResume() async throws {
        try await RegistryE2E.with { e2e in
            let original = try await e2e.addApp("com.example.live")
            let backup = e2e.state.appendingPathComponent("original.p8").path
            try FileManager.default.copyItem(atPath: original.path, toPath: backup)
            try await e2e.addGame("ars-che")
            let created = try #require(try await e2e.json("channels", "create", "--game", "ars-che", "--app", "com.example.live") as? [String: Any])
            let channelID = try #require(created["channelId"] as? String)
            let keys = try await e2e.run("keys", "create", "--name", "feed")
            let key = try #require(keys.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("sck_") }.map(String.init))
            let stranger = try await TeamKeyFile.make(in: e2e.state, curve: "prime256v1")  // never registered
            try Self.replaceKey(at: original.path, with: stranger)

            // The poller's leader exports scorecast_apps_paused.
            let server = try DeliveryEndToEndTests.serve(e2e, roles: "api,worker,poller")
            let url = try await DeliveryEndToEndTests.apiURL(server)
            try await Self.post(url, key: key, Self.goal(1))
            try await eventually("APNs refuses the token and the app is paused") {
                try await e2e.pool.query("SELECT 1 FROM apps WHERE paused_at IS NOT NULL").count == 1
            }
            #expect(DeliveryEndToEndTests.broadcasts(e2e, to: channelID).map(\.reason) == ["InvalidProviderToken"])
            var views = try await Self.pausedViews(url)
            #expect(views.readyz.count == 1 && views.readyz.first?.contains("com.example.live (sandbox)") == true, "\(views.readyz)")
            #expect(views.live == ["com.example.live"])
            #expect(views.metric == "1")
            #expect(try await e2e.run("apps", "list").stdout.contains("paused"))

            // Resume with the key still wrong: APNs is asked first, the pause stays.
            let refused = try await e2e.run("apps", "resume", "com.example.live")
            #expect(refused.code == 4, "\(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.contains("InvalidProviderToken"), "\(refused.stderr)")
            #expect(try await e2e.pool.query("SELECT 1 FROM apps WHERE paused_at IS NOT NULL").count == 1)

            // The admin puts the right key back in place and resumes: the waiting goal goes out.
            try FileManager.default.removeItem(atPath: original.path)
            try FileManager.default.copyItem(atPath: backup, toPath: original.path)
            let resumed = try await e2e.run("apps", "resume", "com.example.live")
            #expect(resumed.code == 0, "\(resumed.stderr)")
            #expect(resumed.stderr.contains("resumed"), "\(resumed.stderr)")
            // The serve's own log says so, where its operator looks.
            let resumedLine = try await server.waitForLine(containing: "app resumed: its waiting updates are sent again")
            #expect(resumedLine.contains("com.example.live"), "\(resumedLine)")
            try await eventually("the waiting goal is delivered") {
                DeliveryEndToEndTests.broadcasts(e2e, to: channelID).contains { $0.status == 200 && $0.body.contains("\"homeScore\":1") }
            }
            views = try await Self.pausedViews(url)
            #expect(views.readyz.isEmpty && views.live.isEmpty && views.metric == "0", "\(views)")
            let again = try await e2e.run("apps", "resume", "com.example.live")
            #expect(again.code == 0 && again.stderr.contains("was not paused"), "\(again.stderr)")

            // Apple revokes the key (the simulator now trusts another one under its ids): paused
            // again. `apps update` with an unregistered key is refused and writes nothing; with a
            // good new key it resumes by itself.
            try e2e.simulator.registerTeam(SimulatorTeam(
                teamID: original.teamID, keyID: original.keyID, publicKeyPEM: stranger.publicKeyPEM, bundleIDs: ["com.example.live"]))
            try await Self.post(url, key: key, Self.goal(2))
            try await eventually("paused again") {
                try await e2e.pool.query("SELECT 1 FROM apps WHERE paused_at IS NOT NULL").count == 1
            }
            let other = try await TeamKeyFile.make(in: e2e.state, curve: "prime256v1")
            let badUpdate = try await e2e.run(
                "apps", "update", "com.example.live", "--team-id", other.teamID, "--key-id", other.keyID, "--key-file", other.path)
            #expect(badUpdate.code == 4, "\(badUpdate.stderr)")
            let stored = try #require(try await e2e.pool.query("SELECT team_id FROM apps").first)
            #expect(try stored.decode("team_id", as: String.self) == original.teamID, "a refused key is not written")
            let fresh = try await e2e.teamKey(bundleIDs: ["com.example.live"])
            let update = try await e2e.run(
                "apps", "update", "com.example.live", "--team-id", fresh.teamID, "--key-id", fresh.keyID, "--key-file", fresh.path)
            #expect(update.code == 0, "\(update.stderr)")
            #expect(update.stderr.contains("resumed"), "\(update.stderr)")
            try await eventually("the second goal is delivered with the new key") {
                DeliveryEndToEndTests.broadcasts(e2e, to: channelID).contains { $0.status == 200 && $0.body.contains("\"homeScore\":2") }
            }
            #expect(try await Self.pausedViews(url).metric == "0")
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")
        }
    }
}
