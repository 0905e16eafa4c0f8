import JSON

/// A per-app change to the default `content-state` shape (``ContentStateRenderer``): keys renamed or
/// left out, for apps whose `ContentState` struct already exists with other names.
///
/// Paths name keys of the default shape, nested ones with a dot (`lastEvent.player`; the
/// members of array elements by the array's path, `scorers.player`). A rename
/// keeps the key at its level. JSON form (stored with the app):
/// `{"rename": {"homeScore": "home", "lastEvent.text": "summary"}, "omit": ["extra"]}`.
public struct ContentStateMapping: Sendable, Hashable {
    /// New names by path.
    public private(set) var renames: [String: String]
    /// Paths left out (with everything under them).
    public private(set) var omitted: Set<String>

    /// The default shape, unchanged.
    public static let identity = ContentStateMapping(checkedRenames: [:], omitted: [])

    private init(checkedRenames: [String: String], omitted: Set<String>) {
        self.renames = checkedRenames
        self.omitted = omitted
    }

    /// Creates a mapping after checking that every path exists in the default shape, every new
    /// name is 1–64 characters without `.` or control characters, no path is both renamed and
    /// omitted, and no two keys at one level end up with the same name.
    public init(renames: [String: String] = [:], omitted: Set<String> = []) throws(ContentStateMappingError) {
        var problems: [String] = []
        let known = Set(ContentStateRenderer.keyPaths)
        for path in renames.keys.sorted() where !known.contains(path) {
            problems.append("rename of unknown key \(path)")
        }
        for path in omitted.sorted() where !known.contains(path) {
            problems.append("omission of unknown key \(path)")
        }
        for (path, name) in renames.sorted(by: { $0.key < $1.key }) {
            let scalars = name.unicodeScalars
            if scalars.isEmpty || scalars.count > 64 || scalars.contains(".") || !scalars.allSatisfy(FieldChecker.isPrintable) {
                problems.append("\(path) cannot be renamed to \"\(name.prefix(64))\": use 1–64 printable characters without a dot")
            }
            if omitted.contains(path) {
                problems.append("\(path) is both renamed and omitted")
            }
        }
        // Final names per level must stay unique.
        var namesByLevel: [String: [String: String]] = [:]
        for path in ContentStateRenderer.keyPaths where !omitted.contains(path) {
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            let level = parts.count == 2 ? parts[0] : ""
            let finalName = renames[path] ?? (parts.last ?? path)
            if let other = namesByLevel[level, default: [:]][finalName] {
                problems.append("\(path) and \(other) would both be named \(finalName)")
            } else {
                namesByLevel[level, default: [:]][finalName] = path
            }
        }
        guard problems.isEmpty else { throw ContentStateMappingError(problems: problems) }
        self.init(checkedRenames: renames, omitted: omitted)
    }

    /// Reads the JSON form; `null` or `{}` is ``identity``.
    public init(jsonValue: JSONValue) throws(ContentStateMappingError) {
        if jsonValue.isNull {
            self = .identity
            return
        }
        guard let members = jsonValue.objectValue else {
            throw ContentStateMappingError(problems: ["must be an object with \"rename\" and \"omit\""])
        }
        var problems: [String] = []
        for key in members.keys.sorted() where key != "rename" && key != "omit" {
            problems.append("unknown field \(key.prefix(64))")
        }
        var renames: [String: String] = [:]
        if let rename = members["rename"] {
            if let entries = rename.objectValue {
                for (path, name) in entries {
                    if let text = name.stringValue { renames[path] = text } else { problems.append("rename.\(path.prefix(64)) must be a string") }
                }
            } else {
                problems.append("rename must be an object")
            }
        }
        var omitted: Set<String> = []
        if let omit = members["omit"] {
            if let entries = omit.arrayValue, entries.allSatisfy({ $0.stringValue != nil }) {
                omitted = Set(entries.compactMap(\.stringValue))
            } else {
                problems.append("omit must be an array of strings")
            }
        }
        guard problems.isEmpty else { throw ContentStateMappingError(problems: problems) }
        try self.init(renames: renames, omitted: omitted)
    }

    /// The JSON form read by ``init(jsonValue:)``.
    public var jsonValue: JSONValue {
        .object([
            "rename": .object(renames.mapValues { .string($0) }),
            "omit": .array(omitted.sorted().map { .string($0) }),
        ])
    }

    /// Applies the mapping to a content-state in the default shape.
    public func apply(to contentState: JSONValue) -> JSONValue {
        guard self != .identity else { return contentState }
        return apply(to: contentState, prefix: "")
    }

    private func apply(to value: JSONValue, prefix: String) -> JSONValue {
        guard let members = value.objectValue else { return value }
        var mapped: [String: JSONValue] = [:]
        for (key, member) in members {
            let path = prefix.isEmpty ? key : prefix + "." + key
            guard !omitted.contains(path) else { continue }
            mapped[renames[path] ?? key] = applyBelow(member, path: path)
        }
        return .object(mapped)
    }

    /// Reads a content-state this mapping produced back in the default shape: renamed keys get
    /// their default names again (omitted ones stay absent). What lets a reader of sent bodies
    /// (the dashboard's view of what phones show) know one shape whatever the app renamed.
    public func unapply(to contentState: JSONValue) -> JSONValue {
        guard self != .identity else { return contentState }
        return unapply(to: contentState, prefix: "")
    }

    private func unapply(to value: JSONValue, prefix: String) -> JSONValue {
        guard let members = value.objectValue else { return value }
        var restored: [String: JSONValue] = [:]
        for (name, member) in members {
            let key = defaultKey(named: name, prefix: prefix)
            let path = prefix.isEmpty ? key : prefix + "." + key
            guard Self.structuredPaths.contains(path) else {
                restored[key] = member
                continue
            }
            if let elements = member.arrayValue {
                restored[key] = .array(elements.map { unapply(to: $0, prefix: path) })
            } else {
                restored[key] = unapply(to: member, prefix: path)
            }
        }
        return .object(restored)
    }

    /// The default key at level `prefix` that the mapping names `name` (the init keeps final
    /// names unique per level, so there is at most one).
    private func defaultKey(named name: String, prefix: String) -> String {
        for (path, newName) in renames where newName == name {
            let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
            let level = parts.count == 2 ? parts[0] : ""
            if level == prefix { return parts.last ?? path }
        }
        return name
    }

    /// A member's own members are mapped when the shape has named keys under it (`clock`,
    /// `lastEvent`, each element of `scorers`…); `extra`'s free keys are left alone.
    private func applyBelow(_ member: JSONValue, path: String) -> JSONValue {
        guard Self.structuredPaths.contains(path) else { return member }
        if let elements = member.arrayValue {
            return .array(elements.map { apply(to: $0, prefix: path) })
        }
        return apply(to: member, prefix: path)
    }

    /// Paths with named keys below them.
    private static let structuredPaths: Set<String> = Set(
        ContentStateRenderer.keyPaths.compactMap { path in path.split(separator: ".", maxSplits: 1).count == 2 ? String(path.split(separator: ".")[0]) : nil }
    )
}
