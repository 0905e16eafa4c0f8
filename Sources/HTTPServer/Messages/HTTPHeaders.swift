/// HTTP header fields: ordered as received or added, names compared case-insensitively, a name
/// may occur several times.
///
/// ```swift
/// var headers: HTTPHeaders = ["Content-Type": "application/json"]
/// headers.add("Vary", "Accept")
/// headers["content-type"]            // "application/json"
/// headers.values(for: "vary")        // ["Accept"]
/// ```
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field as written on the wire.
    public struct Field: Sendable, Hashable {
        /// The name as given (its case is kept for output; comparisons ignore it).
        public var name: String
        /// The value, without surrounding whitespace.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    private var fields: [Field]

    /// Creates an empty set of headers.
    public init() { fields = [] }

    /// Creates headers from fields in order.
    public init(_ fields: [(name: String, value: String)]) {
        self.fields = fields.map { Field(name: $0.name, value: $0.value) }
    }

    /// Creates headers from a literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value for `name`, or `nil`. Setting replaces every field of that name
    /// (`nil` removes them).
    public subscript(name: String) -> String? {
        get { fields.first { Self.same($0.name, name) }?.value }
        set {
            if let newValue { replaceOrAdd(name, newValue) } else { remove(name) }
        }
    }

    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// Whether at least one field is called `name`.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// Appends a field, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field called `name` by one with `value` (at the first one's place).
    public mutating func replaceOrAdd(_ name: String, _ value: String) {
        if let index = fields.firstIndex(where: { Self.same($0.name, name) }) {
            fields[index].value = value
            var next = index + 1
            while next < fields.count {
                if Self.same(fields[next].name, name) { fields.remove(at: next) } else { next += 1 }
            }
        } else {
            add(name, value)
        }
    }

    /// Removes every field called `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// `Name: value` lines, for debugging. Never log request headers: they carry credentials.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Headers are equal when they hold the same fields in the same order (names compared
    /// case-insensitively).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { same($0.name, $1.name) && $0.value == $1.value }
    }

    /// Hashes names case-insensitively, matching `==`.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            for byte in field.name.utf8 { hasher.combine(Self.fold(byte)) }
            hasher.combine(field.value)
        }
    }

    /// Header names are ASCII tokens: fold ASCII letters byte by byte instead of allocating
    /// lower-cased copies on every lookup.
    private static func same(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        return zip(lhs.utf8, rhs.utf8).allSatisfy { fold($0) == fold($1) }
    }

    private static func fold(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}
