@testable import APNsSimulator
import Foundation
import Testing

/// Request ids, unique ids, channel ids and device tokens.
@Suite struct IdentifierTests {
    @Test func uuidsAreLowercaseVersionFour() {
        var random = FastRandom()
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = Identifiers.uuid(using: &random)
            #expect(Identifiers.isLowercaseUUID(id))
            #expect(UUID(uuidString: id) != nil)
            #expect(Array(id)[14] == "4")
            #expect("89ab".contains(Array(id)[19]))
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }

    @Test func uuidValidation() {
        #expect(Identifiers.isLowercaseUUID("0b8c6d1e-8d4a-4bd0-9f5e-2f1a3c4d5e6f"))
        #expect(!Identifiers.isLowercaseUUID("0B8C6D1E-8D4A-4BD0-9F5E-2F1A3C4D5E6F"))
        #expect(!Identifiers.isLowercaseUUID("0b8c6d1e8d4a4bd09f5e2f1a3c4d5e6f"))
        #expect(!Identifiers.isLowercaseUUID("0b8c6d1e-8d4a-4bd0-9f5e-2f1a3c4d5e6g"))
    }

    @Test func channelIDsAreBase64() {
        let id = Identifiers.channelID()
        #expect(Data(base64Encoded: id)?.count == 16)
        #expect(Identifiers.isWellFormedChannelID(id))
        #expect(Identifiers.isWellFormedChannelID("dHN0LXNyY2gtY2hubA=="))
        #expect(!Identifiers.isWellFormedChannelID("dHN0LXNyY2gtY2hubA="))
        #expect(!Identifiers.isWellFormedChannelID("dHN0=LXN"))
        #expect(!Identifiers.isWellFormedChannelID("dHN0-XNy"))
        #expect(!Identifiers.isWellFormedChannelID(""))
    }

    @Test func base64MatchesFoundation() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Identifiers.base64(bytes) == Data(bytes).base64EncodedString())
        }
    }

    @Test func deviceTokens() {
        #expect(Identifiers.isWellFormedDeviceToken(String(repeating: "0a", count: 32)))
        #expect(Identifiers.isWellFormedDeviceToken(String(repeating: "AB", count: 80)))
        #expect(!Identifiers.isWellFormedDeviceToken(String(repeating: "0a", count: 31)))
        #expect(!Identifiers.isWellFormedDeviceToken(String(repeating: "0g", count: 32)))
        #expect(!Identifiers.isWellFormedDeviceToken(String(repeating: "a", count: 65)))
    }
}
