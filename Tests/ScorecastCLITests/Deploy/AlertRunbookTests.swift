import Foundation
import Testing
@testable import ScorecastCLI

/// Every alert in Deploy/prometheus/alerts.yml names, in its `runbook` annotation, one
/// `scorecast` command an operator can paste: each goes through the CLI's own parser, with the
/// alert's label templates filled in as Prometheus fills them.
@Suite struct AlertRunbookTests {
    static let alertsFile = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Deploy/prometheus/alerts.yml")

    /// The `runbook` of every alert, by alert name, in file order.
    static func runbooks() throws -> [(alert: String, command: String)] {
        let text = try String(contentsOf: alertsFile, encoding: .utf8)
        var found: [(String, String)] = []
        var alert: String?
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            if line.hasPrefix("- alert: ") { alert = String(line.dropFirst("- alert: ".count)) }
            if line.hasPrefix("runbook: "), let name = alert {
                found.append((name, String(line.dropFirst("runbook: ".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))))
                alert = nil
            }
        }
        return found
    }

    /// The words of `command` with `{{ $labels.app }}` filled in.
    static func words(_ command: String) -> [String] {
        command.replacingOccurrences(of: "{{ $labels.app }}", with: "com.example.live").split(separator: " ").map(String.init)
    }

    @Test func everyAlertHasARunbookCommandTheCLIParses() throws {
        let text = try String(contentsOf: Self.alertsFile, encoding: .utf8)
        let alerts = text.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("- alert: ") }
        let runbooks = try Self.runbooks()
        #expect(alerts.count == 5 && runbooks.count == alerts.count, "\(runbooks.map(\.alert)) of \(alerts.count) alerts")
        for (alert, command) in runbooks {
            let words = Self.words(command)
            #expect(words.first == "scorecast", "\(alert): \(command)")
            #expect(throws: Never.self, "\(alert): \(command)") { try CLI.parse(Array(words.dropFirst())) }
        }
    }

    /// The parser refuses what the paused-app alert once said: `apps update` takes the bundle id
    /// as its argument, not as an option.
    @Test func theParserRefusesAMisusedCommand() {
        #expect(throws: (any Error).self) { try CLI.parse(["apps", "update", "--bundle-id", "com.example.live", "--key-file", "k.p8"]) }
        #expect(throws: (any Error).self) { try CLI.parse(["apps", "frobnicate"]) }
        #expect(throws: Never.self) { try CLI.parse(["apps", "update", "com.example.live", "--key-file", "k.p8"]) }
    }
}
