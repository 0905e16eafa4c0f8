/// The shape of PEM text, checked before OpenSSL sees it so errors can say what is wrong
/// ("a PUBLIC KEY where a private key is needed") instead of a decoder's generic failure.
struct PEMText: Sendable {
    /// The UTF-8 bytes handed to OpenSSL.
    let bytes: [UInt8]
    /// The labels of the `-----BEGIN <label>-----` lines, in order.
    let labels: [String]

    /// Checks that `bytes` are text with at least one PEM block; `source` names the input in
    /// errors (a file path or "PEM text").
    init(bytes input: [UInt8], source: String) throws {
        // Editors on some systems prefix a UTF-8 byte order mark, which OpenSSL does not skip.
        let bytes = input.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(input.dropFirst(3)) : input
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

    /// The labels of all well-formed BEGIN lines (LF or CRLF line ends; spaces and tabs around
    /// a line are ignored).
    private static func beginLabels(in bytes: [UInt8]) -> [String] {
        let prefix = Array("-----BEGIN ".utf8)
        let suffix = Array("-----".utf8)
        var labels: [String] = []
        let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
        for rawLine in bytes.split(separator: 0x0A) {
            guard let first = rawLine.firstIndex(where: { !isBlank($0) }),
                  let last = rawLine.lastIndex(where: { !isBlank($0) }) else { continue }
            let line = rawLine[first...last]
            guard line.count > prefix.count + suffix.count, line.starts(with: prefix),
                  line.reversed().starts(with: suffix.reversed()) else { continue }
            let label = line.dropFirst(prefix.count).dropLast(suffix.count)
            labels.append(String(decoding: label, as: UTF8.self))
        }
        return labels
    }
}
