import Foundation
@testable import Registry
import ScorecastCrypto
@testable import ServiceBase
import Testing
import TestSupport

/// The keys `apps add --generate-key` and the demo make for the built-in simulator.
@Suite struct GeneratedSigningKeyTests {
    @Test func randomAppleIDsAreValidAndDiffer() throws {
        let ids = (0..<50).map { _ in GeneratedSigningKey.randomAppleID() }
        for id in ids { try AppValidation.checkAppleID(id, option: "--team-id") }
        #expect(Set(ids).count == ids.count)
    }

    @Test func theKeyLivesInTheStateFolderUnderItsAppAndEnvironment() throws {
        let configuration = try Configuration.load(from: ["SCORECAST_STATE_DIR": "/var/lib/scorecast"], workingDirectory: URL(fileURLWithPath: "/"))
        #expect(GeneratedSigningKey.path(configuration, bundleID: "com.example.scores", environment: .production)
            == "/var/lib/scorecast/keys/com.example.scores-production.p8")
    }

    @Test func writesAPrivateKeyOnlyItsOwnerReadsAndReturnsItsPublicHalf() throws {
        let folder = try TemporaryFolder("generated-key")
        defer { folder.remove() }
        let path = folder.url.appendingPathComponent("keys/com.example.scores-sandbox.p8").path
        let publicPEM = try GeneratedSigningKey.write(to: path)

        let key = try P256PrivateKey(contentsOfFile: path)
        #expect(key.publicKey.pem == publicPEM)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: folder.url.appendingPathComponent("keys").path)
        #expect((folderAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }

    @Test func neverOverwritesAKeyThatExists() throws {
        let folder = try TemporaryFolder("generated-key")
        defer { folder.remove() }
        let path = try folder.write("existing.p8", "the key Apple issued")
        let error = try #require(throws: RegistryError.self) { try GeneratedSigningKey.write(to: path) }
        #expect(error.code == .credentialsUnusable)
        #expect(error.message.contains("cannot create \(path)"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "the key Apple issued")
    }
}
