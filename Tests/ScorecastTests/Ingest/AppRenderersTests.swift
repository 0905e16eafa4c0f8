import Foundation
import JSON
import Registry
import ScorecastCore
import Testing

@Suite("Each app's renderer is built once while its row is unchanged")
struct AppRenderersTests {
    private static func app(id: Int64 = 1, mapping: JSONValue = .object([:])) -> AppRecord {
        AppRecord(id: id, bundleID: "com.example.app\(id)", environment: .sandbox, teamID: "TEAM000001", keyID: "KEY0000001",
                  keyPath: "/keys/AuthKey_KEY0000001.p8", contentStateMapping: mapping,
                  createdAt: Date(timeIntervalSince1970: 1_764_000_000))
    }

    @Test("the same row again reuses the renderer; a changed row builds a new one from its own mapping")
    func reusedUntilTheRowChanges() throws {
        let renderers = AppRenderers()
        var builds = 0
        // Builds as ingest does, counting the builds.
        func build(_ app: AppRecord) throws(ContentStateMappingError) -> LiveActivityRenderer {
            builds += 1
            return LiveActivityRenderer(settings: try app.renderSettings(staleness: StalenessPolicy()))
        }
        let first = try renderers.renderer(for: Self.app(), build: build).get()
        _ = try renderers.renderer(for: Self.app(), build: build).get()
        #expect(builds == 1)
        #expect(first.settings.mapping == ContentStateMapping.identity)

        let renamed: JSONValue = ["rename": ["clock": "time"]]
        let changed = try renderers.renderer(for: Self.app(mapping: renamed), build: build).get()
        #expect(builds == 2)
        #expect(changed.settings.mapping.renames == ["clock": "time"])
        // Another app is its own entry, and the first app's new row is what is kept now.
        _ = try renderers.renderer(for: Self.app(id: 2), build: build).get()
        _ = try renderers.renderer(for: Self.app(mapping: renamed), build: build).get()
        #expect(builds == 3)
    }

    @Test("a refused mapping is refused again, with its reason, without being parsed again")
    func refusalIsKept() {
        let renderers = AppRenderers()
        var builds = 0
        func build(_ app: AppRecord) throws(ContentStateMappingError) -> LiveActivityRenderer {
            builds += 1
            return LiveActivityRenderer(settings: try app.renderSettings(staleness: StalenessPolicy()))
        }
        let bad = Self.app(mapping: ["renames": [:]])
        for _ in 0..<2 {
            #expect(throws: ContentStateMappingError(problems: ["unknown field renames"])) {
                try renderers.renderer(for: bad, build: build).get()
            }
        }
        #expect(builds == 1)
    }
}
