@testable import Delivery
import Foundation
@testable import Registry
import ScorecastCore
@testable import ServiceBase
import Testing

/// The settings table is the one place a default, a range or a meaning is written: the loader,
/// the settings structs' defaults, `scorecast config` and docs/operations.md all follow it.
@Suite struct SettingTableTests {
    private let workingDirectory = URL(fileURLWithPath: "/srv/scorecast")

    @Test func theOperationsGuideTableIsGeneratedFromTheSettingsTable() throws {
        let guide = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        #expect(guide.contains(Setting.markdownTable + "\n"),
                "docs/operations.md's settings table differs from the settings table: paste `scorecast config --markdown` into it")
    }

    @Test func everySettingHasOneNameAndAMeaning() {
        let names = Setting.all.map(\.name)
        #expect(Set(names).count == names.count)
        for setting in Setting.all {
            #expect(setting.name.hasPrefix("SCORECAST_"), "\(setting.name)")
            #expect(setting.help.count > 10, "\(setting.name) has no meaning written down")
        }
    }

    @Test func settingsStructsDefaultToTheTable() throws {
        let loaded = try Configuration.load(from: [:], workingDirectory: workingDirectory)
        #expect(PollerSettings() == loaded.poller)
        #expect(IngestSettings() == IngestSettings(configuration: loaded))
        #expect(IngestSettings().notice == NoticePolicy(), "the statistics cadence defaults to the core's documented default")
        let defaults = WorkerSettings()
        let configured = WorkerSettings(configuration: loaded)
        #expect(defaults.workers == configured.workers)
        #expect(defaults.claimBatchSize == configured.claimBatchSize)
        #expect(defaults.leaseDuration == configured.leaseDuration)
        #expect(defaults.pollInterval == configured.pollInterval)
        #expect(defaults.claimLinger == configured.claimLinger)
        #expect(defaults.alertFastLane == configured.alertFastLane && defaults.alertFastLane)
        #expect(defaults.routineInterval == configured.routineInterval)
        #expect(defaults.budgetProfiles == configured.budgetProfiles)
        #expect(defaults.apnsRequestTimeout == configured.apnsRequestTimeout)
        // Serve gives in-flight sends three quarters of the grace (see WorkerSettings).
        #expect(defaults.shutdownGrace * 0.75 == configured.shutdownGrace)
    }

    @Test func aValueGivenInTheEnvironmentIsInEffectAndSaysSo() throws {
        let environment = ["SCORECAST_WORKERS": "7", "SCORECAST_DATABASE_URL": "postgres://scorecast:hunter2@db/scorecast"]
        let effective = Dictionary(uniqueKeysWithValues: Setting.effective(in: environment).map { ($0.setting.name, $0) })
        #expect(effective["SCORECAST_WORKERS"]?.value == "7")
        #expect(effective["SCORECAST_WORKERS"]?.source == .environment)
        #expect(effective["SCORECAST_CLAIM_BATCH"]?.value == "256")
        #expect(effective["SCORECAST_CLAIM_BATCH"]?.source == .default)
        #expect(effective["SCORECAST_DATABASE_URL"]?.value == "(hidden)")
        #expect(try Configuration.load(from: environment, workingDirectory: workingDirectory).workers == 7)
    }

    @Test func aSettingReadAsTheWrongKindIsReportedNotIgnored() {
        var reader = EnvironmentReader(["SCORECAST_WORKERS": "3"])
        _ = reader.boolean(.workers)
        #expect(reader.problems.count == 1)
        #expect(reader.problems.first?.contains("settings table") == true)
    }

    /// The package's root: three levels above this file (Tests/ScorecastTests/Configuration).
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }
}
