import Foundation

/// The location of a value inside a JSON document, such as `events[2].seq`.
///
/// Problems name the fields at fault with it, both as a JSON Pointer (RFC 6901, `/events/2/seq`)
/// for programs and as a dotted path (`events[2].seq`) for people.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// One step into a document: an object member or an array element.
    public enum Component: Sendable, Hashable {
        /// An object member by name.
        case key(String)
        /// An array element by zero-based position.
        case index(Int)
    }

    /// The steps from the document root; empty for the root itself.
    public var components: [Component]

    /// Creates a path from its steps.
    public init(_ components: [Component]) {
        self.components = components
    }

    /// Parses a dotted path such as `events[2].seq` (`[n]` is an array index, `.` separates
    /// member names). An empty string is the root.
    public init(_ dotted: String) {
        var components: [Component] = []
        var name = ""
        var chars = dotted.makeIterator()
        var pending = chars.next()
        func flushName() {
            if !name.isEmpty { components.append(.key(name)) }
            name = ""
        }
        while let char = pending {
            switch char {
            case ".":
                flushName()
            case "[":
                flushName()
                var digits = ""
                var closed = false
                while let next = chars.next() {
                    if next == "]" { closed = true; break }
                    digits.append(next)
                }
                if closed, let index = Int(digits), index >= 0 {
                    components.append(.index(index))
                } else {
                    // Not an index after all: keep the text as part of a member name.
                    name = "[" + digits + (closed ? "]" : "")
                }
            default:
                name.append(char)
            }
            pending = chars.next()
        }
        flushName()
        self.components = components
    }

    /// Parses a dotted path literal; see `init(_ dotted:)`.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Builds a path from a `Codable` coding path: keys with an integer value that come from
    /// unkeyed containers become array indices.
    public init(codingPath: [any CodingKey]) {
        components = codingPath.map { key in
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == String(index) {
                return .index(index)
            }
            return .key(key.stringValue)
        }
    }

    /// The path with one more step.
    public func appending(_ component: Component) -> FieldPath {
        FieldPath(components + [component])
    }

    /// `events[2].seq`; the root is the empty string.
    public var dotted: String {
        var out = ""
        for component in components {
            switch component {
            case .key(let name):
                if !out.isEmpty { out += "." }
                out += name
            case .index(let index):
                out += "[\(index)]"
            }
        }
        return out
    }

    /// The RFC 6901 JSON Pointer, `/events/2/seq`; the root is the empty string.
    public var jsonPointer: String {
        components.map { component in
            switch component {
            case .key(let name): "/" + name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
            case .index(let index): "/\(index)"
            }
        }.joined()
    }

    /// The dotted form.
    public var description: String { dotted }
}
