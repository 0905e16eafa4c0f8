internal import COpenSSL

/// Converts ECDSA P-256 signatures between OpenSSL's DER form and JOSE's raw form
/// (R‖S, each a 32-byte big-endian integer; RFC 7518 §3.4).
enum ECDSASignature {
    /// Size of one coordinate (R or S) for P-256.
    static let coordinateSize = 32
    /// Size of a raw R‖S signature for P-256.
    static let rawSize = 64

    /// DER `ECDSA-Sig-Value` → 64-byte R‖S.
    static func raw(fromDER der: [UInt8]) throws -> [UInt8] {
        let signature = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else {
            throw CryptoError.openSSL(.signingFailed, "OpenSSL returned a signature that is not DER")
        }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: rawSize)
        // BN_bn2binpad keeps leading zeros (BN_bn2bin would drop them and shorten the result).
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress, let r, let s else { return false }
            return BN_bn2binpad(r, base, Int32(coordinateSize)) == Int32(coordinateSize)
                && BN_bn2binpad(s, base + coordinateSize, Int32(coordinateSize)) == Int32(coordinateSize)
        }
        guard written else {
            throw CryptoError.openSSL(.signingFailed, "signature coordinates do not fit in 32 bytes")
        }
        return raw
    }

    /// 64-byte R‖S → DER `ECDSA-Sig-Value`, or nil when `raw` is not 64 bytes.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == rawSize else { return nil }
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let (r, s) = raw.withUnsafeBufferPointer { buffer -> (OpaquePointer?, OpaquePointer?) in
            guard let base = buffer.baseAddress else { return (nil, nil) }
            return (BN_bin2bn(base, Int32(coordinateSize), nil),
                    BN_bin2bn(base + coordinateSize, Int32(coordinateSize), nil))
        }
        // On success ECDSA_SIG_set0 takes ownership of both numbers.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
