import Foundation
import Testing
@testable import Scorecast

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
    ])
    func invalidValuesNameTheVariable(name: String, value: String, expected: String) {
        #expect {
            try Configuration.load(from: [name: value], workingDirectory: workingDirectory)
        } throws: { error in
            (error as? ConfigurationError)?.problems.contains { $0.contains(expected) } == true
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

@Suite struct ParsedArgumentsTests {
    let options: [OptionSpec] = [
        .value("bundle-id", "ID", required: true, "bundle"),
        .value("team", "ID", repeatable: true, "team"),
        .flag("json", "json"),
    ]

    @Test func parsesValuesFlagsAndPositionals() throws {
        let parsed = try ParsedArguments(["--bundle-id=com.example.app", "--json", "--team", "A", "--team", "B", "extra"], options: options)
        #expect(parsed.value("bundle-id") == "com.example.app")
        #expect(parsed.flag("json"))
        #expect(parsed.values("team") == ["A", "B"])
        #expect(parsed.positionals == ["extra"])
    }

    @Test(arguments: [
        (["--bundle-id", "x", "--colour", "red"], "unknown option --colour"),
        (["--json"], "missing --bundle-id"),
        (["--bundle-id"], "--bundle-id needs a value"),
        (["--bundle-id", "a", "--bundle-id", "b"], "--bundle-id given more than once"),
        (["--bundle-id", "a", "--json=yes"], "--json takes no value"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect {
            try ParsedArguments(arguments, options: options)
        } throws: { error in
            (error as? CommandError)?.exitCode == .usage && (error as? CommandError)?.message.contains(message) == true
        }
    }
}
