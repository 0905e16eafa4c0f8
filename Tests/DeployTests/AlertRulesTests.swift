import Foundation
import Testing
import TestSupport

/// The alert rules in Deploy/prometheus, proven by Prometheus' own rule tester (`promtool test
/// rules`, Debian's `prometheus` package): each alert fires on its scenario in alerts.test.yml
/// and stays quiet beside it.
@Suite struct AlertRulesTests {
    static let folder = ExternalTool.packageRoot.appendingPathComponent("Deploy/prometheus")

    @Test func everyAlertFiresOnItsScenarioAndStaysQuietOtherwise() async throws {
        let checked = try await ExternalTool.run("promtool", ["check", "rules", "alerts.yml"], currentDirectory: Self.folder)
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.contains("SUCCESS: 5 rules found"), "\(checked.stdout)")
        let tested = try await ExternalTool.run("promtool", ["test", "rules", "alerts.test.yml"], currentDirectory: Self.folder)
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        // Every alert of the rules file has a scenario.
        let rules = try String(contentsOf: Self.folder.appendingPathComponent("alerts.yml"), encoding: .utf8)
        let scenarios = try String(contentsOf: Self.folder.appendingPathComponent("alerts.test.yml"), encoding: .utf8)
        let alerts = rules.matches(of: /- alert: (\w+)/).map { String($0.output.1) }
        #expect(alerts.count == 5, "\(alerts)")
        for alert in alerts { #expect(scenarios.contains("alertname: \(alert)\n"), "\(alert) has no scenario") }
    }

    /// The tests are not a rubber stamp: the budget rule as it was (a sum that is empty while
    /// no 429 series exists) fails the downgrades-only scenario.
    @Test func theOldBudgetRuleFailsItsScenario() async throws {
        let copy = try TemporaryFolder("scorecast-alerts")
        defer { copy.remove() }
        var rules = try String(contentsOf: Self.folder.appendingPathComponent("alerts.yml"), encoding: .utf8)
        let fixed = try #require(rules.firstRange(of: try Regex(#"        expr: \|\n          \(\n[\s\S]*?\) > 0\n"#)))
        rules.replaceSubrange(fixed, with: """
                    expr: |
                      sum by (app) (increase(scorecast_broadcasts_downgraded_total[15m]))
                        + sum by (app) (increase(scorecast_broadcasts_throttled_total[15m])) > 0

            """)
        _ = try copy.write("alerts.yml", Array(rules.utf8))
        try FileManager.default.copyItem(
            at: Self.folder.appendingPathComponent("alerts.test.yml"), to: copy.url.appendingPathComponent("alerts.test.yml"))
        let tested = try await ExternalTool.run("promtool", ["test", "rules", "alerts.test.yml"], currentDirectory: copy.url)
        #expect(tested.status != 0)
        #expect((tested.stdout + tested.stderr).contains("alertname: ScorecastBudgetExhausted"), "\(tested.stdout)\(tested.stderr)")
    }
}
