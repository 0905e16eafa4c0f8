import EndToEndSupport
import Foundation
import Testing
import TestSupport

/// Creating and deleting channels through the built binary, with no surprises: a second create
/// does not double every broadcast, and a deleted channel stays deleted.
@Suite("End to end: channel lifecycle", .serialized)
struct ChannelLifecycleEndToEndTests {
    @Test("create is idempotent per game, app and policy unless --another; a deleted automatic channel is never recreated and says so")
    func createAndDeleteWithoutSurprises() async throws {
        try await RegistryE2E.with(["SCORECAST_LOG_LEVEL": "info"]) { e2e in
            try await e2e.addApp("com.example.scores")
            try await e2e.addGame("epl-1")

            let ensured = try await e2e.run("channels", "ensure", "--game", "epl-1")
            #expect(ensured.code == 0, "\(ensured.stderr)")
            let logLine = ensured.stderr.split(separator: "\n").first { $0.contains("channel created automatically") }
            #expect(logLine?.contains("game=epl-1") == true && logLine?.contains("bundle_id=com.example.scores") == true,
                    "\(ensured.stderr)")
            let first = try #require(e2e.simulatorChannels("com.example.scores").first)

            let again = try await e2e.run("channels", "create", "--game", "epl-1", "--app", "com.example.scores")
            #expect(again.code == 0)
            #expect(again.stderr.contains("already has live channel"), "\(again.stderr)")
            #expect(again.stdout.contains(first))
            #expect(e2e.simulatorChannels("com.example.scores") == [first])
            let another = try #require(
                try await e2e.json("channels", "create", "--game", "epl-1", "--app", "com.example.scores", "--another") as? [String: Any])
            let second = try #require(another["channelId"] as? String)
            #expect(e2e.simulatorChannels("com.example.scores") == [first, second])

            // Deleting both: the game opts out, and ensure creates nothing.
            for channel in [first, second] {
                let deleted = try await e2e.run("channels", "delete", channel)
                #expect(deleted.code == 0, "\(deleted.stderr)")
                #expect(deleted.stdout.contains("game epl-1 opts out of com.example.scores's automatic channels"), "\(deleted.stdout)")
                #expect(deleted.stderr.contains("channel deleted by an admin") && deleted.stderr.contains("game=epl-1"), "\(deleted.stderr)")
            }
            let skipped = try await e2e.run("channels", "ensure", "--game", "epl-1")
            #expect(skipped.code == 0)
            #expect(skipped.stdout.contains("skipped (an admin deleted its channel"), "\(skipped.stdout)")
            #expect(e2e.simulatorChannels("com.example.scores").isEmpty)

            // By hand it comes back, and automatic ensure sees it.
            let back = try await e2e.run("channels", "create", "--game", "epl-1", "--app", "com.example.scores")
            #expect(back.code == 0 && !back.stderr.contains("already has"), "\(back.stderr)")
            #expect(e2e.simulatorChannels("com.example.scores").count == 1)
            let ensureJSON = try #require(try await e2e.json("channels", "ensure", "--game", "epl-1") as? [String: Any])
            let results = try #require(ensureJSON["results"] as? [[String: Any]])
            #expect(results.map { $0["outcome"] as? String } == ["exists"], "\(ensureJSON)")
        }
    }
}
