import Foundation

/// The JSON conventions of the statistics API: RFC 3339 dates, sorted keys, no escaped slashes.
package enum StatsJSON {
    /// A new encoder for statistics responses (`JSONEncoder` is not `Sendable`, so each caller
    /// gets its own).
    package static func encoder(pretty: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// A new decoder for statistics responses.
    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Encodes `value` with `encoder(pretty:)`.
    package static func encode(_ value: some Encodable, pretty: Bool = false) throws -> Data {
        try encoder(pretty: pretty).encode(value)
    }
}
