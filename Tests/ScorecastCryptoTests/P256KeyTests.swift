import ScorecastCrypto
import Foundation
import Testing
import TestSupport

/// Keys made by the openssl command line, the way operators make them.
enum OpenSSLKeys {
    /// `openssl ecparam -genkey -name prime256v1 -noout | openssl pkcs8 -topk8 -nocrypt`: the `.p8` shape.
    static func pkcs8P256() async throws -> String {
        let sec1 = try await ExternalTool.require("openssl", ["ecparam", "-genkey", "-name", "prime256v1", "-noout"])
        return try await ExternalTool.require("openssl", ["pkcs8", "-topk8", "-nocrypt"], input: Array(sec1.utf8))
    }

    /// The public key of `privatePEM` as `openssl pkey -pubout` writes it.
    static func publicPEM(of privatePEM: String) async throws -> String {
        try await ExternalTool.require("openssl", ["pkey", "-pubout"], input: Array(privatePEM.utf8))
    }

    /// The base64 body lines of a PEM text: the secret part of a private key.
    static func bodyLines(_ pem: String) -> [String] {
        pem.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") && $0.count >= 16 }
    }
}

@Suite struct P256PrivateKeyLoadingTests {
    @Test func loadsAnOpenSSLGeneratedPKCS8KeyFromTextAndFile() async throws {
        let pem = try await OpenSSLKeys.pkcs8P256()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write("AuthKey_ABC123DEFG.p8", pem)

        let fromText = try P256PrivateKey(pem: pem)
        let fromFile = try P256PrivateKey(contentsOfFile: path)
        let expected = try await P256PublicKey(pem: OpenSSLKeys.publicPEM(of: pem))
        #expect(fromText.publicKey == expected)
        #expect(fromFile.publicKey == expected)
        // openssl writes the same SubjectPublicKeyInfo PEM we do.
        #expect(fromFile.publicKey.pem == (try await OpenSSLKeys.publicPEM(of: pem)))
    }

    /// Apple's `.p8` downloads end without a newline; keys also travel with CRLF line ends or a
    /// byte order mark after passing through other editors.
    @Test func loadsKeysWithoutFinalNewlineWithCRLFOrWithByteOrderMark() async throws {
        let pem = try await OpenSSLKeys.pkcs8P256()
        let expected = try P256PrivateKey(pem: pem).publicKey
        let variants = [
            String(pem.dropLast()),
            pem.replacingOccurrences(of: "\n", with: "\r\n"),
            "\u{FEFF}" + pem,
        ]
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        for (index, variant) in variants.enumerated() {
            #expect(try P256PrivateKey(pem: variant).publicKey == expected, "variant \(index)")
            let path = try folder.write("key\(index).p8", variant)
            #expect(try P256PrivateKey(contentsOfFile: path).publicKey == expected, "variant \(index) from a file")
        }
    }

    @Test func loadsSEC1KeysWithAndWithoutParameters() async throws {
        let withParameters = try await ExternalTool.require("openssl", ["ecparam", "-genkey", "-name", "prime256v1"])
        #expect(withParameters.contains("-----BEGIN EC PARAMETERS-----"))
        #expect(withParameters.contains("-----BEGIN EC PRIVATE KEY-----"))
        let key = try P256PrivateKey(pem: withParameters)
        #expect(key.publicKey == (try await P256PublicKey(pem: OpenSSLKeys.publicPEM(of: withParameters))))

        let bare = try await ExternalTool.require("openssl", ["ecparam", "-genkey", "-name", "prime256v1", "-noout"])
        let bareKey = try P256PrivateKey(pem: bare)
        #expect(bareKey.publicKey == (try await P256PublicKey(pem: OpenSSLKeys.publicPEM(of: bare))))
    }

    @Test func generatedKeysExportAsPKCS8ThatOpenSSLAccepts() async throws {
        let key = try P256PrivateKey.generate()
        #expect(key.pkcs8PEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(key.pkcs8PEM.hasSuffix("-----END PRIVATE KEY-----\n"))
        let text = try await ExternalTool.require("openssl", ["pkey", "-noout", "-text"], input: Array(key.pkcs8PEM.utf8))
        #expect(text.contains("prime256v1"))
        let reloaded = try P256PrivateKey(pem: key.pkcs8PEM)
        #expect(reloaded.publicKey == key.publicKey)
        #expect(key.publicKey == (try await P256PublicKey(pem: OpenSSLKeys.publicPEM(of: key.pkcs8PEM))))
        #expect(try P256PrivateKey.generate().publicKey != key.publicKey)
    }

    @Test func descriptionsNeverRevealTheKey() async throws {
        let key = try P256PrivateKey.generate()
        #expect("\(key)" == "P256PrivateKey(redacted)")
        #expect(String(reflecting: key) == "P256PrivateKey(redacted)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("BEGIN"))
        let wrapped = "\([key])"
        for line in OpenSSLKeys.bodyLines(key.pkcs8PEM) {
            #expect(!dumped.contains(line))
            #expect(!wrapped.contains(line))
        }
        #expect(Mirror(reflecting: key).children.isEmpty)
    }
}

@Suite struct P256KeyErrorTests {
    /// Loads `content` from a file and returns the error, checking it names the path and holds
    /// no line of the file's secret body.
    private func loadError(_ name: String, _ content: [UInt8]) async throws -> CryptoError {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = try folder.write(name, content)
        let error = try #require(throws: CryptoError.self) { try P256PrivateKey(contentsOfFile: path) }
        #expect(error.description.contains(path), "the error names the file")
        for line in OpenSSLKeys.bodyLines(String(decoding: content, as: UTF8.self)) {
            #expect(!error.description.contains(line), "the error holds no key material")
        }
        return error
    }

    @Test func rsaKeyIsRejectedByName() async throws {
        let rsa = try await ExternalTool.require("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let error = try await loadError("rsa.p8", Array(rsa.utf8))
        #expect(error.code == .unsupportedKey)
        #expect(error.description.contains("RSA"))
        #expect(error.description.contains("P-256"))
    }

    @Test func traditionalRSAKeyIsRejectedByLabel() async throws {
        let rsa = try await ExternalTool.require("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let traditional = try await ExternalTool.require("openssl", ["pkey", "-traditional"], input: Array(rsa.utf8))
        #expect(traditional.contains("BEGIN RSA PRIVATE KEY"))
        let error = try await loadError("rsa.pem", Array(traditional.utf8))
        #expect(error.code == .unsupportedKey)
        #expect(error.description.contains("RSA PRIVATE KEY"))
    }

    @Test func otherCurveIsRejectedByName() async throws {
        let sec1 = try await ExternalTool.require("openssl", ["ecparam", "-genkey", "-name", "secp384r1", "-noout"])
        let p384 = try await ExternalTool.require("openssl", ["pkcs8", "-topk8", "-nocrypt"], input: Array(sec1.utf8))
        let error = try await loadError("p384.p8", Array(p384.utf8))
        #expect(error.code == .unsupportedKey)
        #expect(error.description.contains("secp384r1"))
    }

    @Test func garbageEmptyAndBinaryFilesAreNotPEM() async throws {
        let garbage = try await loadError("garbage.p8", Array("this is not a key\nat all\n".utf8))
        #expect(garbage.code == .notPEM)
        #expect(garbage.description.contains("BEGIN"))

        let empty = try await loadError("empty.p8", [])
        #expect(empty.code == .notPEM)
        #expect(empty.description.contains("empty"))

        let whitespace = try await loadError("blank.p8", Array("  \n\n".utf8))
        #expect(whitespace.code == .notPEM)

        // The start of a DER EC key (SEQUENCE, INTEGER 1, OCTET STRING) and random bytes.
        let der: [UInt8] = [0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20] + SecureRandom.bytes(32) + [0x00, 0xA0]
        let binary = try await loadError("key.der", der)
        #expect(binary.code == .notPEM)
    }

    @Test func missingFileAndFolderAreUnreadable() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let missing = folder.path + "/AuthKey_MISSING.p8"
        let error = try #require(throws: CryptoError.self) { try P256PrivateKey(contentsOfFile: missing) }
        #expect(error.code == .unreadableFile)
        #expect(error.description.contains(missing))
        #expect(error.description.contains("No such file"))

        let folderError = try #require(throws: CryptoError.self) { try P256PrivateKey(contentsOfFile: folder.path) }
        #expect(folderError.code == .unreadableFile)
        #expect(folderError.description.contains(folder.path))
    }

    @Test func publicKeyWhereAPrivateKeyIsNeeded() async throws {
        let pem = try await OpenSSLKeys.pkcs8P256()
        let error = try await loadError("public.pem", Array(try OpenSSLKeys.publicPEM(of: pem).utf8))
        #expect(error.code == .unsupportedKey)
        #expect(error.description.contains("PUBLIC KEY"))
    }

    @Test func encryptedKeyIsRejected() async throws {
        let pem = try await OpenSSLKeys.pkcs8P256()
        let encrypted = try await ExternalTool.require(
            "openssl", ["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-passout", "pass:secret"], input: Array(pem.utf8))
        let error = try await loadError("encrypted.p8", Array(encrypted.utf8))
        #expect(error.code == .encryptedKey)
    }

    @Test func corruptBodyIsInvalidWithoutEchoingIt() async throws {
        let pem = try await OpenSSLKeys.pkcs8P256()
        var lines = pem.split(separator: "\n").map(String.init)
        lines[1] = String(lines[1].reversed())
        let corrupt = lines.joined(separator: "\n") + "\n"
        let error = try await loadError("corrupt.p8", Array(corrupt.utf8))
        #expect(error.code == .invalidKey)
        #expect(!error.openSSLErrors.isEmpty, "OpenSSL's reason is included")
    }

    @Test func publicKeyParsingErrors() async throws {
        #expect(throws: CryptoError.self) { try P256PublicKey(pem: "nonsense") }
        let pem = try await OpenSSLKeys.pkcs8P256()
        let error = try #require(throws: CryptoError.self) { try P256PublicKey(pem: pem) }
        #expect(error.code == .unsupportedKey)
        #expect(error.description.contains("PRIVATE KEY"))
        for line in OpenSSLKeys.bodyLines(pem) {
            #expect(!error.description.contains(line))
        }
        let rsa = try await ExternalTool.require("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"])
        let rsaPublic = try await OpenSSLKeys.publicPEM(of: rsa)
        let rsaError = try #require(throws: CryptoError.self) { try P256PublicKey(pem: rsaPublic) }
        #expect(rsaError.code == .unsupportedKey)
        #expect(rsaError.description.contains("RSA"))
    }
}
