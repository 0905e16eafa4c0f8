import APNsCore
@testable import Registry
import ScorecastCore
import Testing

@Suite("App validation")
struct AppValidationTests {
    @Test(arguments: ["com.example.scores", "a.b", "com.Example-App.x2", "A1.b-2.c3"])
    func acceptsBundleIDs(_ value: String) {
        #expect(AppValidation.isValidBundleID(value))
    }

    @Test(arguments: [
        "", "scores", "com..example", ".com.example", "com.example.", "com.example scores", "com.exämple.app",
        "com.example/app", "com.example.app.push-type.liveactivity_", String(repeating: "a.", count: 78) + "ab",
    ])
    func refusesBundleIDs(_ value: String) {
        #expect(!AppValidation.isValidBundleID(value))
        #expect(throws: RegistryError.self) { try AppValidation.checkBundleID(value) }
    }

    @Test func bundleIDErrorsNameTheOption() throws {
        let error = try #require(throws: RegistryError.self) { try AppValidation.checkBundleID("scores", option: "--app") }
        #expect(error.code == .invalidInput)
        #expect(error.message.contains("--app"))
    }

    @Test(arguments: ["ABCDE12345", "0000000000", "ZZZZZZZZZZ"])
    func acceptsAppleIDs(_ value: String) throws {
        try AppValidation.checkAppleID(value, option: "--team-id")
    }

    @Test(arguments: ["abcde12345", "ABCDE1234", "ABCDE123456", "ABCDE-1234", "", "ÄBCDE12345"])
    func refusesAppleIDs(_ value: String) throws {
        let error = try #require(throws: RegistryError.self) { try AppValidation.checkAppleID(value, option: "--key-id") }
        #expect(error.message.contains("--key-id"))
        #expect(error.message.contains("10 upper-case letters or digits"))
    }

    @Test func settingsRanges() throws {
        var settings = AppSettings()
        try settings.validate()
        settings.budgetPerHour = 10_001
        #expect(throws: RegistryError.self) { try settings.validate() }
        settings.budgetPerHour = 0
        try settings.validate()
        settings.dismissalDelaySeconds = 14_401
        let error = try #require(throws: RegistryError.self) { try settings.validate() }
        #expect(error.message.contains("--dismissal-delay"))
    }

    @Test func draftNeedsAnAbsoluteKeyPath() throws {
        let draft = AppDraft(bundleID: "com.example.a", environment: .sandbox, teamID: "ABCDE12345", keyID: "KEY1234567", keyPath: "keys/a.p8")
        let error = try #require(throws: RegistryError.self) { try draft.validate() }
        #expect(error.message.contains("absolute"))
    }

    @Test func changesApplyOnlyWhatIsGiven() {
        var changes = AppChanges()
        #expect(changes.isEmpty)
        changes.budgetPerHour = .some(nil)
        changes.alertStyle = .plainText
        var current = AppSettings()
        current.budgetPerHour = 40
        current.frequentUpdates = true
        let applied = changes.applied(to: current)
        #expect(applied.budgetPerHour == nil)
        #expect(applied.alertStyle == .plainText)
        #expect(applied.frequentUpdates)
        #expect(!changes.isEmpty)
    }

    @Test func namesRoundTrip() {
        for policy in ChannelStoragePolicy.allCases {
            #expect(RegistryNames.storagePolicy(named: RegistryNames.storagePolicy(policy)) == policy)
        }
        for style in AlertStyle.allCases {
            #expect(RegistryNames.alertStyle(named: RegistryNames.alertStyle(style)) == style)
        }
        for encoding in ContentDateEncoding.allCases {
            #expect(RegistryNames.dateEncoding(named: RegistryNames.dateEncoding(encoding)) == encoding)
        }
        #expect(Set(RegistryNames.dateEncodings) == Set(AppRecord.dateEncodings.keys))
    }
}
