internal import COpenSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Self-signed X.509 v3 certificates for local TLS servers (the APNs simulator, tests).
///
/// The certificate is its own CA (`basicConstraints` critical `CA:TRUE`) and carries the given
/// subject alternative names, so clients can trust it directly as their CA file (curl's
/// `CURLOPT_CAINFO`/`--cacert`, h2load) and still verify the host name against the SANs.
public enum SelfSignedCertificate {
    /// Longest common name X.509 allows (RFC 5280 `ub-common-name`).
    static let maximumCommonNameLength = 64
    /// Longest validity accepted, in days (100 years).
    static let maximumValidityDays = 36_500

    /// A new P-256 key and a self-signed certificate for it, both as PEM.
    ///
    /// - Parameters:
    ///   - commonName: the subject and issuer CN (1–64 characters).
    ///   - subjectAlternativeNames: DNS names (`"localhost"`, `"*.example.test"`) and IPv4/IPv6
    ///     addresses (`"127.0.0.1"`, `"::1"`); addresses become `IP` entries, the rest `DNS`.
    ///   - validityDays: 1–36,500 days from now (`notBefore` is set 5 minutes back for clock skew).
    /// - Returns: the certificate (`-----BEGIN CERTIFICATE-----`) and its private key (PKCS#8).
    /// - Throws: `CryptoError.invalidArgument` for a bad name or validity, `.certificateFailed`
    ///   when OpenSSL cannot build or sign the certificate.
    public static func generate(
        commonName: String,
        subjectAlternativeNames: [String],
        validityDays: Int
    ) throws -> (certificatePEM: String, privateKeyPEM: String) {
        guard !commonName.isEmpty, commonName.utf8.count <= maximumCommonNameLength,
              !commonName.utf8.contains(0) else {
            throw CryptoError(code: .invalidArgument, context: "common name must be 1–\(maximumCommonNameLength) bytes without NUL, got \(commonName.utf8.count) bytes")
        }
        guard (1...maximumValidityDays).contains(validityDays) else {
            throw CryptoError(code: .invalidArgument, context: "validity must be 1–\(maximumValidityDays) days, got \(validityDays)")
        }
        guard !subjectAlternativeNames.isEmpty else {
            throw CryptoError(code: .invalidArgument, context: "at least one subject alternative name is needed for host name verification")
        }
        let sanEntries = try subjectAlternativeNames.map(sanEntry)

        let key = try P256PrivateKey.generate()
        let certificate = try build(
            commonName: commonName, sanEntries: sanEntries, validityDays: validityDays, key: key)
        return (certificate, key.pkcs8PEM)
    }

    /// `"IP:<address>"` or `"DNS:<name>"` for one SAN, after checking it cannot inject further
    /// entries into OpenSSL's extension syntax (no commas, colons only inside IPv6 addresses).
    static func sanEntry(_ name: String) throws -> String {
        if isIPAddress(name) { return "IP:" + name }
        guard isDNSName(name) else {
            throw CryptoError(code: .invalidArgument, context: "subject alternative name '\(name)' is neither an IP address nor a DNS name")
        }
        return "DNS:" + name
    }

    /// Whether `text` is a literal IPv4 or IPv6 address.
    static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }

    /// Whether `text` is a host name: dot-separated labels of letters, digits and inner hyphens,
    /// each 1–63 bytes, 253 bytes in all, optionally starting with a `*` wildcard label.
    static func isDNSName(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 253 else { return false }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for (index, label) in labels.enumerated() {
            if index == 0, labels.count > 1, label.elementsEqual([UInt8(ascii: "*")]) { continue }
            guard (1...63).contains(label.count),
                  label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                  label.allSatisfy(isHostNameCharacter) else { return false }
        }
        return true
    }

    private static func isHostNameCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// Builds, signs and PEM-encodes the certificate.
    private static func build(commonName: String, sanEntries: [String], validityDays: Int, key: P256PrivateKey) throws -> String {
        OpenSSLErrorQueue.clear()
        guard let certificate = X509_new() else {
            throw CryptoError.openSSL(.certificateFailed, "could not allocate a certificate")
        }
        defer { X509_free(certificate) }
        let pkey = key.evpKey.pointer

        guard X509_set_version(certificate, Int(X509_VERSION_3)) == 1 else {
            throw CryptoError.openSSL(.certificateFailed, "could not set version 3")
        }
        try setRandomSerial(certificate)
        try setName(certificate, commonName: commonName)
        // Backdated a little so a client whose clock is slightly behind still accepts it.
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), -300) != nil,
              X509_time_adj_ex(X509_getm_notAfter(certificate), Int32(validityDays), 0, nil) != nil else {
            throw CryptoError.openSSL(.certificateFailed, "could not set the validity period")
        }
        guard X509_set_pubkey(certificate, pkey) == 1 else {
            throw CryptoError.openSSL(.certificateFailed, "could not set the public key")
        }

        var context = X509V3_CTX()
        COpenSSL_X509V3_set_ctx_nodb(&context)
        X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
        // The subject key identifier comes before the authority key identifier, which copies it.
        let extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:TRUE"),
            (NID_key_usage, "critical,digitalSignature,keyCertSign,cRLSign"),
            (NID_ext_key_usage, "serverAuth,clientAuth"),
            (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
            (NID_subject_alt_name, sanEntries.joined(separator: ",")),
        ]
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                let name = OBJ_nid2sn(nid).map { String(cString: $0) } ?? "extension \(nid)"
                throw CryptoError.openSSL(.certificateFailed, "could not build the \(name) extension")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(certificate, ext, -1) == 1 else {
                throw CryptoError.openSSL(.certificateFailed, "could not add an extension")
            }
        }

        guard X509_sign(certificate, pkey, EVP_sha256()) > 0 else {
            throw CryptoError.openSSL(.certificateFailed, "could not sign the certificate")
        }
        return try MemoryBIO.writingText("the certificate") { bio in
            PEM_write_bio_X509(bio, certificate)
        }
    }

    /// A random positive 127-bit serial number (RFC 5280 allows up to 20 octets).
    private static func setRandomSerial(_ certificate: OpaquePointer) throws {
        var serial = SecureRandom.bytes(16)
        serial[0] = (serial[0] & 0x7F) | 0x01
        guard let number = BN_bin2bn(serial, Int32(serial.count), nil) else {
            throw CryptoError.openSSL(.certificateFailed, "could not create a serial number")
        }
        defer { BN_free(number) }
        guard BN_to_ASN1_INTEGER(number, X509_get_serialNumber(certificate)) != nil else {
            throw CryptoError.openSSL(.certificateFailed, "could not set the serial number")
        }
    }

    /// Subject and issuer `CN=<commonName>` (the same name: the certificate signs itself).
    private static func setName(_ certificate: OpaquePointer, commonName: String) throws {
        guard let name = X509_NAME_new() else {
            throw CryptoError.openSSL(.certificateFailed, "could not allocate a name")
        }
        defer { X509_NAME_free(name) }
        let bytes = Array(commonName.utf8)
        guard X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
            throw CryptoError.openSSL(.invalidArgument, "common name is not accepted by X.509")
        }
        // Both setters copy the name.
        guard X509_set_subject_name(certificate, name) == 1, X509_set_issuer_name(certificate, name) == 1 else {
            throw CryptoError.openSSL(.certificateFailed, "could not set the subject and issuer")
        }
    }
}
