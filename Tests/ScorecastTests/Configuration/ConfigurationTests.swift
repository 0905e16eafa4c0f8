@testable import Delivery
import DeliveryEngine
import Foundation
import ScorecastCore
@testable import ServiceBase
import Testing

@Suite struct ConfigurationTests {
    let workingDirectory = URL(fileURLWithPath: "/srv/scorecast")

    @Test func defaultsNeedNoEnvironment() throws {
        let configuration = try Configuration.load(from: [:], workingDirectory: workingDirectory)
        #expect(configuration.database == .embedded)
        #expect(configuration.apns == .builtInSimulator)
        #expect(configuration.stateDirectory.path == "/srv/scorecast/.scorecast")
        #expect(configuration.httpPort == 8080)
        #expect(configuration.roles == [.api, .worker, .poller])
        #expect(configuration.autoMigrate)
    }

    @Test(arguments: [
        ("SCORECAST_HTTP_PORT", "eighty", "SCORECAST_HTTP_PORT must be a whole number"),
        ("SCORECAST_HTTP_PORT", "70000", "SCORECAST_HTTP_PORT must be between 0 and 65535"),
        ("SCORECAST_WORKERS", "0", "SCORECAST_WORKERS must be between 1 and 256"),
        ("SCORECAST_AUTO_MIGRATE", "maybe", "SCORECAST_AUTO_MIGRATE must be true or false"),
        ("SCORECAST_LOG_LEVEL", "loud", "SCORECAST_LOG_LEVEL must be one of"),
        ("SCORECAST_ROLES", "api,chef", "SCORECAST_ROLES must be a comma-separated list"),
        ("SCORECAST_UNKNOWN_GAMES", "ignore", "SCORECAST_UNKNOWN_GAMES must be one of create, refuse"),
        ("SCORECAST_APNS_TOKEN_REFRESH_MINUTES", "61", "SCORECAST_APNS_TOKEN_REFRESH_MINUTES must be between 20 and 59"),
        ("SCORECAST_RETRY_MAX_ATTEMPTS", "0", "SCORECAST_RETRY_MAX_ATTEMPTS must be between 1 and 1000"),
        ("SCORECAST_RETRY_BASE_MS", "400000", "SCORECAST_RETRY_BASE_MS must be between 1 and 60000"),
        ("SCORECAST_RETRY_MAX_MS", "5", "SCORECAST_RETRY_MAX_MS must be between 10 and 3600000"),
        ("SCORECAST_RETRY_AFTER_MAX_SECONDS", "7200", "SCORECAST_RETRY_AFTER_MAX_SECONDS must be between 0 and 3600"),
    ])
    func invalidValuesNameTheVariable(name: String, value: String, expected: String) {
        #expect {
            try Configuration.load(from: [name: value], workingDirectory: workingDirectory)
        } throws: { error in
            (error as? ConfigurationError)?.problems.contains { $0.contains(expected) } == true
        }
    }

    @Test func retrySettingsReachTheWorkersPolicy() throws {
        let configuration = try Configuration.load(from: [
            "SCORECAST_RETRY_MAX_ATTEMPTS": "5", "SCORECAST_RETRY_BASE_MS": "200", "SCORECAST_RETRY_MAX_MS": "8000",
            "SCORECAST_RETRY_AFTER_MAX_SECONDS": "30", "SCORECAST_ROUTINE_INTERVAL_MS": "1500",
        ], workingDirectory: workingDirectory)
        let policy = WorkerSettings(configuration: configuration).retryPolicy
        #expect(policy.maximumAttempts == 5)
        #expect(policy.baseDelay == 0.2)
        #expect(policy.maximumDelay == 8)
        #expect(policy.maximumRetryAfter == 30)
        let defaults = WorkerSettings(configuration: try Configuration.load(from: [:], workingDirectory: workingDirectory)).retryPolicy
        #expect(defaults == RetryPolicy(maximumRetryAfter: 60), "the defaults are the core's")
        #expect {
            try Configuration.load(from: ["SCORECAST_RETRY_BASE_MS": "9000", "SCORECAST_RETRY_MAX_MS": "8000"], workingDirectory: workingDirectory)
        } throws: { error in
            (error as? ConfigurationError)?.problems.contains { $0.contains("SCORECAST_RETRY_BASE_MS") && $0.contains("SCORECAST_RETRY_MAX_MS") } == true
        }
    }

    @Test func everyProblemIsReportedAtOnce() {
        #expect {
            try Configuration.load(from: ["SCORECAST_HTTP_PORT": "x", "SCORECAST_WORKERS": "-1"], workingDirectory: workingDirectory)
        } throws: { error in
            (error as? ConfigurationError)?.problems.count == 2
        }
    }

    @Test func aBadDatabaseURLIsNotEchoed() {
        let secret = "hunter2-secret"
        #expect {
            try Configuration.load(from: ["SCORECAST_DATABASE_URL": "mysql://u:\(secret)@h/db"], workingDirectory: workingDirectory)
        } throws: { error in
            let text = "\(error)"
            return text.contains("SCORECAST_DATABASE_URL") && !text.contains(secret)
        }
    }

    @Test func apnsProxyIsReadAndNeverEchoed() throws {
        let secret = "pr0xy-hunter2"
        let loaded = try Configuration.load(from: ["SCORECAST_APNS_PROXY": "http://scorecast:\(secret)@proxy.internal:3128"],
                                            workingDirectory: workingDirectory)
        #expect(loaded.apnsProxy == "http://scorecast:\(secret)@proxy.internal:3128")
        #expect(try Configuration.load(from: [:], workingDirectory: workingDirectory).apnsProxy == nil)
        #expect {
            try Configuration.load(from: ["SCORECAST_APNS_PROXY": "ftp://u:\(secret)@proxy.internal"], workingDirectory: workingDirectory)
        } throws: { error in
            let text = "\(error)"
            return text.contains("SCORECAST_APNS_PROXY") && !text.contains(secret)
        }
    }

    @Test func apnsHostsMustComeTogether() throws {
        #expect(throws: ConfigurationError.self) {
            try Configuration.load(from: ["SCORECAST_APNS_SEND_HOST": "api.push.apple.com"], workingDirectory: workingDirectory)
        }
        let both = try Configuration.load(
            from: ["SCORECAST_APNS_SEND_HOST": "api.push.apple.com", "SCORECAST_APNS_MANAGEMENT_HOST": "api-manage-broadcast.push.apple.com"],
            workingDirectory: workingDirectory)
        #expect(both.apns == .remote(
            send: .init(host: "api.push.apple.com", port: 443, caFile: nil),
            management: .init(host: "api-manage-broadcast.push.apple.com", port: 2196, caFile: nil)))
    }

    @Test func everyDocumentedSettingIsRead() throws {
        // Setting each documented variable to a value that cannot be valid for any typed
        // setting must either be reported (typed) or accepted (free text): never ignored.
        let documented = Configuration.settings.map(\.name)
        #expect(Set(documented).count == documented.count)
        let freeText = Set(Configuration.settings.filter {
            if case .text = $0.kind { !["SCORECAST_STALE_SECONDS", "SCORECAST_APNS_CA_FILE"].contains($0.name) } else { false }
        }.map(\.name))
        for name in documented where !freeText.contains(name) {
            var environment = [name: "%%not-a-value%%"]
            if name.hasPrefix("SCORECAST_APNS_") && name.hasSuffix("_HOST") { continue }
            if name == "SCORECAST_APNS_CA_FILE" { environment[name] = "/nonexistent/ca.pem" }
            #expect(throws: ConfigurationError.self, "\(name) is documented but not validated") {
                try Configuration.load(from: environment, workingDirectory: workingDirectory)
            }
        }
    }
}
