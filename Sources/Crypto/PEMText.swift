/// The shape of PEM text, checked before OpenSSL sees it so errors can say what is wrong
/// ("a PUBLIC KEY where a private key is needed") instead of a decoder's generic failure.
struct PEMText: Sendable {
    /// The UTF-8 bytes handed to OpenSSL.
    let bytes: [UInt8]
    /// The labels of the `-----BEGIN <label>-----` lines, in order.
    let labels: [String]

    /// Checks that `bytes` are text with at least one PEM block; `source` names the input in
    /// errors (a file path or "PEM text").
    init(bytes: [UInt8], source: String) throws {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            throw CryptoError(code: .notPEM, context: "\(source) is empty")
        }
        // PEM is ASCII; a NUL or invalid UTF-8 means a binary (DER?) file.
        guard !bytes.contains(0), String(validating: bytes, as: UTF8.self) != nil else {
            throw CryptoError(code: .notPEM, context: "\(source) is not PEM text (binary content; DER is not supported)")
        }
        let labels = PEMText.beginLabels(in: bytes)
        guard !labels.isEmpty else {
            throw CryptoError(code: .notPEM, context: "\(source) is not PEM (no '-----BEGIN …-----' line)")
        }
        self.bytes = bytes
        self.labels = labels
    }

    /// The labels of all well-formed BEGIN lines.
    private static func beginLabels(in bytes: [UInt8]) -> [String] {
        let text = String(decoding: bytes, as: UTF8.self)
        var labels: [String] = []
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let trimmed = line.trimmingSpaces()
            let prefix = "-----BEGIN "
            let suffix = "-----"
            guard trimmed.hasPrefix(prefix), trimmed.hasSuffix(suffix),
                  trimmed.count > prefix.count + suffix.count else { continue }
            let label = trimmed.dropFirst(prefix.count).dropLast(suffix.count)
            labels.append(String(label))
        }
        return labels
    }
}

extension Substring {
    /// Drops leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> Substring {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }
}
