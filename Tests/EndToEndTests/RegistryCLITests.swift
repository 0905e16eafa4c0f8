import APNs
import APNsSimulator
import EndToEndSupport
import Foundation
import Postgres
import TestSupport
import Testing

/// The channel registry through the built `scorecast` binary, against a real Postgres and the
/// APNs simulator.
@Suite("Registry CLI end to end")
struct RegistryCLITests {
    @Test func appsAddRefusesEveryBadArgumentAndWritesNothing() async throws {
        try await RegistryE2E.with { fixture in
            let key = try await fixture.teamKey(bundleIDs: ["com.example.scores"])
            let secret = try String(contentsOfFile: key.path, encoding: .utf8)
            let rsa = fixture.state.appendingPathComponent("rsa.p8").path
            let encrypted = fixture.state.appendingPathComponent("encrypted.p8").path
            let text = fixture.state.appendingPathComponent("notes.txt").path
            try await Shell.run("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out '\(rsa)' 2>/dev/null")
            try await Shell.run("openssl pkcs8 -topk8 -in '\(key.path)' -v2 aes-256-cbc -passout pass:secret -out '\(encrypted)'")
            try "just some notes".write(toFile: text, atomically: true, encoding: .utf8)
            let p384 = try await TeamKeyFile.make(in: fixture.state, curve: "secp384r1")

            let valid = ["--bundle-id", "com.example.scores", "--environment", "sandbox", "--team-id", key.teamID,
                         "--key-id", key.keyID, "--key-file", key.path]
            func with(_ option: String, _ value: String?) -> [String] {
                var arguments = valid
                if let index = arguments.firstIndex(of: option) {
                    if let value { arguments[index + 1] = value } else { arguments.removeSubrange(index...(index + 1)) }
                } else if let value {
                    arguments += [option, value]
                } else {
                    arguments.append(option)
                }
                return arguments
            }
            let cases: [(arguments: [String], mentions: String)] = [
                (with("--bundle-id", "scores"), "--bundle-id"),
                (with("--bundle-id", "com..example"), "--bundle-id"),
                (with("--environment", "staging"), "--environment"),
                (with("--environment", nil), "--environment"),
                (with("--team-id", "abcde12345"), "--team-id"),
                (with("--team-id", nil), "--team-id"),
                (with("--key-id", "KEY123"), "--key-id"),
                (with("--key-file", fixture.state.appendingPathComponent("missing.p8").path), "missing.p8"),
                (with("--key-file", fixture.state.path), "not a regular file"),
                (with("--key-file", rsa), "rsa.p8"),
                (with("--key-file", encrypted), "encrypted"),
                (with("--key-file", text), "notes.txt"),
                (with("--key-file", p384.path), "P-256"),
                (with("--key-file", nil), "--key-file"),
                (with("--budget", "10001"), "--budget"),
                (with("--budget", "lots"), "--budget"),
                (with("--date-encoding", "julian"), "--date-encoding"),
                (with("--dismissal-delay", "99999"), "--dismissal-delay"),
                (with("--alert-style", "loud"), "--alert-style"),
                (with("--storage-policy", "forever"), "--storage-policy"),
                (with("--generate-key", nil), "--generate-key"),
                (with("--colour", "blue"), "--colour"),
            ]
            for testCase in cases {
                let result = try await fixture.run(["apps", "add"] + testCase.arguments)
                #expect(result.code == 2, "\(testCase.arguments): \(result.stderr)")
                #expect(result.stderr.contains(testCase.mentions), "\(testCase.arguments): \(result.stderr)")
                #expect(!result.stderr.contains("PRIVATE KEY") && !result.stderr.contains(secret.split(separator: "\n")[1]))
            }
            #expect((try await fixture.json("apps", "list") as? [Any])?.isEmpty == true)

            let added = try await fixture.run(["apps", "add"] + valid + ["--json"])
            #expect(added.code == 0, "\(added.stderr)")
            let app = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
            #expect(app["keyPath"] as? String == key.path)
            #expect(!added.stdout.contains("PRIVATE KEY"))
            let duplicate = try await fixture.run(["apps", "add"] + valid)
            #expect(duplicate.code == 1)
            #expect(duplicate.stderr.contains("already exists"))
            #expect((try await fixture.json("apps", "list") as? [Any])?.count == 1)
            let stored = try await fixture.pool.query("SELECT key_path FROM apps")
            #expect(try stored.map { try $0.decode("key_path", as: String.self) } == [key.path])
        }
    }

    @Test func appsShowAndUpdate() async throws {
        try await RegistryE2E.with(["SCORECAST_BUDGET_FREQUENT_PER_HOUR": "77"]) { fixture in
            try await fixture.addApp("com.example.scores", "--frequent-updates", "--date-encoding", "unix-seconds",
                                     "--alert-style", "plain", "--no-auto-channels", "--storage-policy", "most-recent")
            let shown = try #require(try await fixture.json("apps", "show", "com.example.scores") as? [String: Any])
            #expect(shown["frequentUpdates"] as? Bool == true)
            #expect(shown["budgetPerHour"] as? Int == 77)
            #expect(shown["dateEncoding"] as? String == "unix-seconds")
            #expect(shown["alertStyle"] as? String == "plain")
            #expect(shown["autoChannels"] as? Bool == false)
            #expect(shown["defaultStoragePolicy"] as? String == "most-recent")
            #expect(shown["channels"] as? Int == 0)
            #expect(shown["channelLimit"] as? Int == 10_000)

            let updated = try #require(try await fixture.json(
                "apps", "update", "com.example.scores", "--budget", "5", "--auto-channels", "--dismissal-delay", "0") as? [String: Any])
            #expect(updated["budgetPerHour"] as? Int == 5)
            #expect(updated["autoChannels"] as? Bool == true)
            #expect(updated["dismissalDelaySeconds"] as? Int == 0)
            #expect(updated["alertStyle"] as? String == "plain")

            let nothing = try await fixture.run("apps", "update", "com.example.scores")
            #expect(nothing.code == 2)
            let unknown = try await fixture.run("apps", "show", "com.example.unknown")
            #expect(unknown.code == 3)
            let human = try await fixture.run("apps", "show", "com.example.scores")
            #expect(human.stdout.contains("0 of 10000 (0%)"))
        }
    }

    @Test func createListShowDeleteAndDeleteAgain() async throws {
        try await RegistryE2E.with { fixture in
            try await fixture.addApp("com.example.scores")
            try await fixture.addGame("epl-1")
            let created = try #require(try await fixture.json(
                "channels", "create", "--game", "epl-1", "--app", "com.example.scores", "--policy", "most-recent") as? [String: Any])
            let channelID = try #require(created["channelId"] as? String)
            let id = try #require(created["id"] as? Int)
            #expect(created["storagePolicy"] as? String == "most-recent")
            #expect(created["games"] as? [String] == ["epl-1"])
            #expect(fixture.simulatorChannels("com.example.scores") == [channelID])
            #expect(fixture.simulator.channels().first?.messageStoragePolicy == 1)

            let listed = try #require(try await fixture.json("channels", "list", "--game", "epl-1") as? [[String: Any]])
            #expect(listed.map { $0["channelId"] as? String } == [channelID])
            let table = try await fixture.run("channels", "list")
            #expect(table.code == 0)
            #expect(table.stdout.contains(channelID) && table.stdout.contains("active"))
            let byAPNsID = try #require(try await fixture.json("channels", "show", channelID) as? [String: Any])
            #expect(byAPNsID["id"] as? Int == id)
            let app = try #require(try await fixture.json("apps", "show", "com.example.scores") as? [String: Any])
            #expect(app["channels"] as? Int == 1)
            let game = try #require(try await fixture.json("games", "show", "epl-1") as? [String: Any])
            #expect((game["channels"] as? [[String: Any]])?.first?["channelId"] as? String == channelID)

            let deleted = try await fixture.run("channels", "delete", String(id))
            #expect(deleted.code == 0, "\(deleted.stderr)")
            #expect(deleted.stdout.contains("deleted"))
            #expect(fixture.simulatorChannels("com.example.scores").isEmpty)
            let again = try await fixture.run("channels", "delete", String(id))
            #expect(again.code == 0)
            #expect(again.stdout.contains("already deleted"))
            let status = try #require(try await fixture.json("channels", "show", String(id)) as? [String: Any])
            #expect(status["status"] as? String == "deleted")
            #expect((try await fixture.json("channels", "list", "--status", "active") as? [Any])?.isEmpty == true)

            #expect(try await fixture.run("channels", "show", "999").code == 3)
            #expect(try await fixture.run("channels", "delete", "999").code == 3)
            #expect(try await fixture.run("channels", "create", "--game", "nope", "--app", "com.example.scores").code == 3)
            #expect(try await fixture.run("channels", "create", "--game", "epl-1", "--app", "com.example.nope").code == 3)
            #expect(try await fixture.run("channels", "create", "--game", "epl-1", "--app", "com.example.scores", "--policy", "x").code == 2)
        }
    }

    @Test func gamesAddTakesEachTeamsCodeAndColours() async throws {
        try await RegistryE2E.with { fixture in
            let added = try await fixture.run(
                "games", "add", "--id", "epl-2", "--league", "EPL", "--home", "Arsenal", "--away", "Chelsea",
                "--starts-at", "2026-05-24T15:00:00Z", "--home-code", "afc", "--home-colours", "#ef0107,#ffffff")
            #expect(added.code == 0, "\(added.stderr)")
            let game = try #require(try await fixture.json("games", "show", "epl-2") as? [String: Any])
            #expect(game["home"] as? [String: String] == ["code": "AFC", "primaryColour": "#EF0107", "secondaryColour": "#FFFFFF"])
            #expect(game["away"] as? [String: String] == ["code": "CHE", "primaryColour": "#8E8E93", "secondaryColour": "#FFFFFF"], "fallbacks")

            let bad = try await fixture.run(
                "games", "add", "--id", "epl-3", "--league", "EPL", "--home", "Arsenal", "--away", "Chelsea",
                "--starts-at", "2026-05-24T15:00:00Z", "--away-code", "CHEL")
            #expect(bad.code != 0)
            #expect(bad.stderr.contains("--away-code must be 3 letters or digits (ARS, S04), got \"CHEL\""), "\(bad.stderr)")
            #expect(try await fixture.run("games", "show", "epl-3").code == 3, "nothing is written")
        }
    }

    @Test func theLightChannelIsMadeOnceBesideTheStandardOne() async throws {
        try await RegistryE2E.with { fixture in
            try await fixture.addApp("com.example.scores")
            try await fixture.addGame("epl-1")
            let standard = try #require(try await fixture.json("channels", "create", "--game", "epl-1", "--app", "com.example.scores") as? [String: Any])
            let light = try #require(try await fixture.json("games", "light-channel", "epl-1", "--app", "com.example.scores") as? [String: String])
            let lightID = try #require(light["channelId"])
            #expect(light["tier"] == "light" && light["game"] == "epl-1")
            #expect(lightID != standard["channelId"] as? String)
            #expect(fixture.simulatorChannels("com.example.scores").count == 2)

            let again = try await fixture.run("games", "light-channel", "epl-1", "--app", "com.example.scores")
            #expect(again.code == 0, "\(again.stderr)")
            #expect(again.stdout.contains("light channel exists \(lightID) for epl-1"))
            #expect(fixture.simulatorChannels("com.example.scores").count == 2)
            #expect(try await fixture.run("games", "light-channel", "nope", "--app", "com.example.scores").code == 3)
        }
    }

    @Test func reconcileReportsAndFixesOrphansAndGoneChannels() async throws {
        try await RegistryE2E.with { fixture in
            let key = try await fixture.addApp("com.example.scores")
            try await fixture.addGame("epl-1")
            let kept = try #require(try await fixture.json("channels", "create", "--game", "epl-1", "--app", "com.example.scores") as? [String: Any])
            let vanishing = try #require(try await fixture.json("channels", "create", "--game", "epl-1", "--app", "com.example.scores", "--another") as? [String: Any])
            let keptID = try #require(kept["channelId"] as? String)
            let vanishingID = try #require(vanishing["channelId"] as? String)

            // Behind the registry's back: a channel created at APNs, and one deleted there.
            let clients = try APNsClientFactory.client(fixture.endpoints)
            let credentials = try key.credentials()
            let orphan = try #require(try await clients.createChannel(
                bundleID: "com.example.scores", policy: .noMessageStored, credentials: credentials).channelID)
            #expect(try await clients.deleteChannel(bundleID: "com.example.scores", channelID: vanishingID, credentials: credentials).status == 204)
            await clients.shutdown()

            let report = try #require((try await fixture.json("channels", "reconcile") as? [[String: Any]])?.first)
            #expect(report["clean"] as? Bool == false)
            #expect((report["orphans"] as? [[String: Any]])?.map { $0["channelId"] as? String } == [orphan])
            #expect((report["gone"] as? [[String: Any]])?.map { $0["channelId"] as? String } == [vanishingID])
            #expect(fixture.simulatorChannels("com.example.scores") == [keptID, orphan])
            let human = try await fixture.run("channels", "reconcile")
            #expect(human.stdout.contains("orphan  \(orphan)") && human.stdout.contains("run again with --fix"))

            let fixed = try await fixture.run("channels", "reconcile", "--fix")
            #expect(fixed.code == 0, "\(fixed.stderr)")
            #expect(fixed.stdout.contains("deleted at APNs") && fixed.stdout.contains("marked gone"))
            #expect(fixture.simulatorChannels("com.example.scores") == [keptID])
            let gone = try #require(try await fixture.json("channels", "list", "--status", "gone") as? [[String: Any]])
            #expect(gone.map { $0["channelId"] as? String } == [vanishingID])
            let clean = try #require((try await fixture.json("channels", "reconcile", "--app", "com.example.scores") as? [[String: Any]])?.first)
            #expect(clean["clean"] as? Bool == true)
        }
    }

    @Test func channelLimitWarnsThenRefusesBeforeAPNsAndAPNsOwnLimitIsReported() async throws {
        try await RegistryE2E.with(["SCORECAST_CHANNEL_LIMIT": "2"]) { fixture in
            try await fixture.addApp("com.example.scores")
            try await fixture.addGame("epl-1")
            let create = ["channels", "create", "--game", "epl-1", "--app", "com.example.scores", "--another"]
            let first = try await fixture.run(create)
            #expect(first.code == 0 && !first.stderr.contains("warning"))
            let second = try await fixture.run(create)
            #expect(second.code == 0)
            #expect(second.stderr.contains("warning: com.example.scores (sandbox) now uses 2 of 2 (100%)"))
            let requestsBefore = fixture.simulator.receivedRequests().count
            let refused = try await fixture.run(create)
            #expect(refused.code == 4)
            #expect(refused.stderr.contains("limit is reached"))
            #expect(fixture.simulator.receivedRequests().count == requestsBefore)
            let shown = try await fixture.run("apps", "show", "com.example.scores")
            #expect(shown.stdout.contains("2 of 2 (100%)"))

            // APNs' own limit, lowered in the simulator: its refusal and reason are printed.
            try await fixture.addApp("com.example.other")
            try fixture.simulator.setChannelLimit(1)
            let other = ["channels", "create", "--game", "epl-1", "--app", "com.example.other", "--another"]
            #expect(try await fixture.run(other).code == 0)
            let apnsRefused = try await fixture.run(other)
            #expect(apnsRefused.code == 4)
            #expect(apnsRefused.stderr.contains("400 CannotCreateChannelConfig"))
            #expect((try await fixture.json("channels", "list", "--app", "com.example.other") as? [Any])?.count == 1)
        }
    }

    @Test func failuresDuringCreateLeaveRegistryAndAPNsConsistent() async throws {
        try await RegistryE2E.with { fixture in
            try await fixture.addApp("com.example.scores")
            try await fixture.addGame("epl-1")
            let create = ["channels", "create", "--game", "epl-1", "--app", "com.example.scores"]

            try fixture.simulator.setFaults(SimulatorFaults(failNext: 1, failStatus: 503))
            let refused = try await fixture.run(create)
            #expect(refused.code == 4)
            #expect(refused.stderr.contains("503 ServiceUnavailable"))
            #expect(fixture.simulatorChannels("com.example.scores").isEmpty)
            #expect((try await fixture.json("channels", "list") as? [Any])?.isEmpty == true)

            // The registry write fails after APNs created the channel: it is deleted there again.
            try await fixture.pool.withConnection { connection in
                try await connection.executeScript(unsafeSQL: """
                    CREATE FUNCTION refuse_binding() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'no bindings today'; END $$;
                    CREATE TRIGGER refuse_binding BEFORE INSERT ON channel_bindings FOR EACH ROW EXECUTE FUNCTION refuse_binding();
                    """)
            }
            let failed = try await fixture.run(create)
            #expect(failed.code == 5)
            #expect(failed.stderr.contains("deleted at APNs again"))
            #expect(fixture.simulatorChannels("com.example.scores").isEmpty)
            let methods = fixture.simulator.receivedRequests().suffix(2).map { "\($0.method) \($0.status ?? 0)" }
            #expect(methods == ["POST 201", "DELETE 204"])
            #expect((try await fixture.json("channels", "list") as? [Any])?.isEmpty == true)
            let reconcile = try #require((try await fixture.json("channels", "reconcile") as? [[String: Any]])?.first)
            #expect(reconcile["clean"] as? Bool == true)
        }
    }

    @Test func generatedKeysWithTheBuiltInSimulator() async throws {
        try await RegistryE2E.with { fixture in
            let builtIn = [
                "SCORECAST_APNS_SEND_HOST": "", "SCORECAST_APNS_SEND_PORT": "", "SCORECAST_APNS_MANAGEMENT_HOST": "",
                "SCORECAST_APNS_MANAGEMENT_PORT": "", "SCORECAST_APNS_CA_FILE": "",
            ]
            try await fixture.addGame("epl-1")
            // No `serve` is running: the app is added (the next serve registers it), channels cannot be made.
            let offline = try await fixture.run(
                ["apps", "add", "--bundle-id", "com.example.first", "--environment", "sandbox", "--generate-key", "--json"], extra: builtIn)
            #expect(offline.code == 0, "\(offline.stderr)")
            #expect(offline.stderr.contains("the next `scorecast serve` registers"))
            let first = try #require(try JSONSerialization.jsonObject(with: Data(offline.stdout.utf8)) as? [String: Any])
            let keyPath = try #require(first["keyPath"] as? String)
            #expect(keyPath == fixture.state.appendingPathComponent("keys/com.example.first-sandbox.p8").path)
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
            #expect((first["teamId"] as? String)?.count == 10)
            let notRunning = try await fixture.run(["channels", "create", "--game", "epl-1", "--app", "com.example.first"], extra: builtIn)
            #expect(notRunning.code == 1)
            #expect(notRunning.stderr.contains(
                "the built-in APNs simulator is not running: start `scorecast serve` (or `scorecast demo`) in another terminal, or configure SCORECAST_APNS_* for Apple's servers"))
            let again = try await fixture.run(
                ["apps", "add", "--bundle-id", "com.example.first", "--environment", "sandbox", "--generate-key"], extra: builtIn)
            #expect(again.code == 2)
            #expect(again.stderr.contains("exists already"))

            // A running simulator (this process's, announced the way `serve` announces its own).
            let file = fixture.state.appendingPathComponent("apns-sim/endpoints.json")
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            let announcement = """
                {"pid":\(getpid()),"sendPort":\(fixture.endpoints.sendPort),"managementPort":\(fixture.endpoints.managementPort),\
                "adminPort":\(fixture.endpoints.adminPort),"caCertificate":"\(fixture.endpoints.caCertificatePath)"}
                """
            try announcement.write(to: file, atomically: true, encoding: .utf8)
            let online = try await fixture.run(
                ["apps", "add", "--bundle-id", "com.example.second", "--environment", "production", "--generate-key",
                 "--team-id", "TEAM000001"], extra: builtIn)
            #expect(online.code == 0, "\(online.stderr)")
            #expect(online.stderr.contains("registered with the running built-in simulator"))
            let team = try #require(fixture.simulator.teams.first { $0.bundleIDs.contains("com.example.second") })
            #expect(team.teamID == "TEAM000001")
            let created = try await fixture.run(["channels", "create", "--game", "epl-1", "--app", "com.example.second"], extra: builtIn)
            #expect(created.code == 0, "\(created.stderr)")
            #expect(fixture.simulatorChannels("com.example.second").count == 1)
            let remote = try await fixture.run(["apps", "add", "--bundle-id", "com.example.third", "--environment", "sandbox", "--generate-key"])
            #expect(remote.code == 2)
            #expect(remote.stderr.contains("only with the built-in simulator"))
        }
    }

    @Test func ensureAndTheReadEndpointOfARunningServer() async throws {
        try await RegistryE2E.with { fixture in
            try await fixture.addApp("com.example.scores")
            try await fixture.addApp("com.example.manual", "--no-auto-channels")
            try await fixture.addGame("epl-1")
            let ensured = try #require(try await fixture.json("channels", "ensure", "--game", "epl-1") as? [String: Any])
            let results = try #require(ensured["results"] as? [[String: Any]])
            #expect(results.map { $0["outcome"] as? String } == ["created"])
            let again = try #require(try await fixture.json("channels", "ensure", "--game", "epl-1") as? [String: Any])
            #expect((again["results"] as? [[String: Any]])?.map { $0["outcome"] as? String } == ["exists"])
            let channelID = try #require(fixture.simulatorChannels("com.example.scores").first)
            #expect(fixture.simulatorChannels("com.example.scores").count == 1)
            #expect(try await fixture.run("channels", "ensure", "--game", "nope").code == 3)

            var environment = fixture.environment
            environment["SCORECAST_HTTP_PORT"] = "0"
            environment["SCORECAST_ROLES"] = "api"
            let server = try ScorecastProcess(["serve"], environment: environment)
            let line = try await server.waitForLine(containing: "HTTP API listening")
            let address = try #require(line.split(separator: " ").first { $0.hasPrefix("address=") }?.dropFirst("address=".count))
            func get(_ path: String) async throws -> (Int, [String: Any]) {
                let response = try await TestClient.live(String(address)).get(path)
                return (response.status, try response.json())
            }
            let (status, body) = try await get("/v1/games/epl-1/channels?bundle-id=com.example.scores")
            #expect(status == 200)
            #expect(body["game"] as? String == "epl-1")
            #expect(body["channels"] as? [[String: String]] == [[
                "channelId": channelID, "bundleId": "com.example.scores", "environment": "sandbox", "storagePolicy": "no-store",
                "tier": "standard",
            ]])
            #expect(try await get("/v1/games/unknown/channels?bundle-id=com.example.scores").0 == 404)
            #expect(try await get("/v1/games/epl-1/channels?bundle-id=not%20valid").0 == 400)
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0)
        }
    }
}

/// An APNs client on the fixture's simulator, to act behind the registry's back.
enum APNsClientFactory {
    static func client(_ endpoints: SimulatorEndpoints) throws -> APNsClient {
        try APNsClient(configuration: APNsClientConfiguration(
            sendEndpoint: APNsEndpoint(host: "127.0.0.1", port: endpoints.sendPort, caFile: endpoints.caCertificatePath),
            managementEndpoint: APNsEndpoint(host: "127.0.0.1", port: endpoints.managementPort, caFile: endpoints.caCertificatePath)),
            logger: RegistryE2E.logger)
    }
}
