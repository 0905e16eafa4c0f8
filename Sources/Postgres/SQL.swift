import Foundation

/// A statement with its parameters kept apart from its text.
///
/// Every interpolated value becomes a bound `$n` parameter, so input can never change the
/// statement:
/// ```swift
/// let rows = try await pool.query("SELECT id FROM games WHERE league = \(league) AND seq > \(seq)")
/// ```
/// Raw text is spliced only through the loudly named `\(unsafeSQL: …)` / `SQL.unsafeSQL(_:)`;
/// `\(identifier: …)` splices a quoted identifier (a schema or table name).
///
/// Each connection keeps the statements it runs prepared (see
/// `PostgresConfiguration.statementCacheCapacity`), keyed by their text: a statement whose
/// text differs from call to call (spliced lists, generated fragments) should say so with
/// `SQL.unprepared(_:)` rather than crowd the cache out.
///
/// Its `description` shows the text with `$n` placeholders, never the bound values.
public struct SQL: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    private enum Segment: Sendable {
        case text(String)
        case bind(Int)
    }

    private var segments: [Segment] = []
    /// The bound values, in `$1`, `$2`… order.
    public private(set) var binds: [PostgresBindValue] = []
    /// The first value that could not be encoded; reported when the statement runs, because
    /// string interpolation cannot throw.
    private(set) var encodingError: PostgresError?
    /// Whether a connection may keep this statement prepared (the default); `false` after
    /// `SQL.unprepared(_:)`, or when any appended fragment was unprepared.
    public private(set) var usesStatementCache = true

    /// An empty statement, to be built with `append`.
    public init() {}

    /// A statement with no parameters.
    public init(stringLiteral value: String) {
        if !value.isEmpty { segments = [.text(value)] }
    }

    /// A statement built by interpolation.
    public init(stringInterpolation: StringInterpolation) {
        self = stringInterpolation.sql
    }

    /// Raw SQL text, spliced as is. Never pass anything derived from input.
    public static func unsafeSQL(_ text: String) -> SQL {
        var sql = SQL()
        sql.appendText(text)
        return sql
    }

    /// `sql`, run without the statement cache: parsed and planned by the server every time.
    /// For statements whose text varies per call, which would only evict useful entries:
    /// ```swift
    /// try await pool.execute(.unprepared("DELETE FROM \(unsafeSQL: table) WHERE id = \(id)"))
    /// ```
    public static func unprepared(_ sql: SQL) -> SQL {
        var copy = sql
        copy.usesStatementCache = false
        return copy
    }

    /// A double-quoted identifier (schema, table, column or channel name), with embedded quotes
    /// doubled; a NUL byte is reported as an encoding error when the statement runs.
    public static func identifier(_ name: String) -> SQL {
        var sql = SQL()
        if name.utf8.contains(0) || name.isEmpty {
            sql.encodingError = PostgresError(.encodingFailed, "an identifier is empty or contains a NUL byte")
            return sql
        }
        sql.appendText(quoteIdentifier(name))
        return sql
    }

    /// Appends `other`, renumbering its parameters after this statement's.
    public mutating func append(_ other: SQL) {
        let offset = binds.count
        for segment in other.segments {
            switch segment {
            case .text(let text): appendText(text)
            case .bind(let index): segments.append(.bind(index + offset))
            }
        }
        binds.append(contentsOf: other.binds)
        usesStatementCache = usesStatementCache && other.usesStatementCache
        if encodingError == nil { encodingError = other.encodingError }
    }

    /// The two statements joined, parameters renumbered.
    public static func + (lhs: SQL, rhs: SQL) -> SQL {
        var joined = lhs
        joined.append(rhs)
        return joined
    }

    /// The statement text with `$1`, `$2`… in place of the values.
    public var text: String {
        var text = ""
        for segment in segments {
            switch segment {
            case .text(let part): text += part
            case .bind(let index): text += "$\(index + 1)"
            }
        }
        return text
    }

    /// The text with placeholders; bound values are never shown.
    public var description: String { text }

    private mutating func appendText(_ text: String) {
        guard !text.isEmpty else { return }
        if case .text(let previous)? = segments.last {
            segments[segments.count - 1] = .text(previous + text)
        } else {
            segments.append(.text(text))
        }
    }

    private mutating func appendBind<T: PostgresEncodable>(_ value: T) {
        do {
            binds.append(try value.postgresBindValue())
        } catch {
            if encodingError == nil { encodingError = error }
            binds.append(.null(T.postgresDataType))
        }
        segments.append(.bind(binds.count - 1))
    }

    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Builds a `SQL` from literal text and interpolations.
    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var sql = SQL()

        /// Creates an empty builder.
        public init(literalCapacity: Int, interpolationCount: Int) {}

        /// Statement text written in the literal.
        public mutating func appendLiteral(_ literal: String) { sql.appendText(literal) }

        /// A value, bound as the next `$n` parameter.
        public mutating func appendInterpolation<T: PostgresEncodable>(_ value: T) { sql.appendBind(value) }

        /// An optional value, bound as the next `$n` parameter (NULL for `nil`). Spelled out so
        /// that interpolating an optional is not mistaken for printing one.
        public mutating func appendInterpolation<T: PostgresEncodable>(_ value: T?) { sql.appendBind(value) }

        /// Raw text, spliced as is. Never pass anything derived from input.
        public mutating func appendInterpolation(unsafeSQL text: String) { sql.appendText(text) }

        /// A double-quoted identifier.
        public mutating func appendInterpolation(identifier name: String) { sql.append(.identifier(name)) }

        /// Another statement fragment, its parameters renumbered.
        public mutating func appendInterpolation(_ fragment: SQL) { sql.append(fragment) }
    }
}
