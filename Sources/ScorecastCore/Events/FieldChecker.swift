import JSON

/// Collects field errors while checking one input; shared by the event and settings validators.
struct FieldChecker {
    private(set) var errors: [FieldError] = []
    let maximumErrors: Int

    init(maximumErrors: Int) {
        self.maximumErrors = maximumErrors
    }

    mutating func fail(_ path: String, _ message: String) {
        guard errors.count < maximumErrors else { return }
        errors.append(FieldError(path: path, message: message))
    }

    /// `events[2]` + `id` → `events[2].id`; keys that are not plain names are shown quoted and
    /// cut short, so a hostile key cannot flood an error message.
    static func join(_ path: String, _ key: String) -> String {
        let shown: String
        if !key.isEmpty, key.unicodeScalars.count <= 64, key.unicodeScalars.allSatisfy(isPlainKeyScalar) {
            shown = key
        } else {
            let cleaned = String(String.UnicodeScalarView(key.unicodeScalars.prefix(32).map { isPrintable($0) && $0 != "\"" ? $0 : "?" }))
            shown = "\"" + cleaned + (key.unicodeScalars.count > 32 ? "…" : "") + "\""
        }
        return path.isEmpty ? shown : path + "." + shown
    }

    /// Unknown keys passed over, by path (the first ``maximumErrors``), and how many in all.
    private(set) var ignored: [String] = []
    private(set) var ignoredCount = 0

    /// Passes over keys not in `known`, noting each: a feed that sends a newer field than this
    /// server knows loses nothing it sent that the server understands.
    mutating func ignoreUnknownKeys(_ members: [String: JSONValue], known: Set<String>, path: String) {
        for key in JSONValue.sortedKeys(members) where !known.contains(key) {
            ignoredCount += 1
            if ignored.count < maximumErrors { ignored.append(FieldChecker.join(path, key)) }
        }
    }

    mutating func refuseUnknownKeys(_ members: [String: JSONValue], allowed: Set<String>, path: String) {
        for key in JSONValue.sortedKeys(members) where !allowed.contains(key) {
            fail(FieldChecker.join(path, key), "is not a known field")
        }
    }

    mutating func text(
        _ value: JSONValue?, path: String, required: Bool, length: ClosedRange<Int>,
        allowed: (Unicode.Scalar) -> Bool, allowedDescription: String, nullable: Bool = false
    ) -> String? {
        guard let value else {
            if required { fail(path, "is required") }
            return nil
        }
        guard let text = value.stringValue else {
            fail(path, "must be a string\(nullable ? " or null" : ""), got \(value.typeName)")
            return nil
        }
        let count = text.unicodeScalars.count
        guard length.contains(count) else {
            fail(path, "must be \(length.lowerBound) to \(length.upperBound) characters long, got \(count)")
            return nil
        }
        guard text.unicodeScalars.allSatisfy(allowed) else {
            fail(path, "may contain only \(allowedDescription)")
            return nil
        }
        return text
    }

    /// An optional boolean: `nil` when absent; a failure naming the field when not a boolean.
    mutating func boolean(_ value: JSONValue?, path: String) -> Bool? {
        guard let value else { return nil }
        guard let flag = value.boolValue else {
            fail(path, "must be a boolean, got \(value.typeName)")
            return nil
        }
        return flag
    }

    mutating func integer(_ value: JSONValue?, path: String, required: Bool, range: ClosedRange<Int>) -> Int? {
        guard let value else {
            if required { fail(path, "is required") }
            return nil
        }
        guard let number = value.integerValue, range.contains(number) else {
            let got: String
            switch value {
            case .integer(let number): got = String(number)
            case .double(let number): got = number.description
            default: got = value.typeName
            }
            fail(path, "must be an integer from \(range.lowerBound) to \(range.upperBound), got \(got)")
            return nil
        }
        return number
    }

    mutating func enumeration<Value: RawRepresentable & CaseIterable>(
        _ value: JSONValue?, path: String, required: Bool, as type: Value.Type
    ) -> Value? where Value.RawValue == String {
        guard let value else {
            if required { fail(path, "is required") }
            return nil
        }
        let choices = Value.allCases.map(\.rawValue).joined(separator: ", ")
        guard let text = value.stringValue, let parsed = Value(rawValue: text) else {
            fail(path, "must be one of \(choices)")
            return nil
        }
        return parsed
    }

    /// Not a control character (C0, DEL, C1).
    static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        !(scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value))
    }

    static func isGameIDScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", ".", "_", ":", "-": true
        default: false
        }
    }

    static func isPlainKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
        default: false
        }
    }

    /// `^[A-Za-z][A-Za-z0-9_]{0,31}$`
    static func isExtraKey(_ key: String) -> Bool {
        let scalars = Array(key.unicodeScalars)
        guard let first = scalars.first, scalars.count <= FeedEventLimits.extraKeyMaximumLength else { return false }
        guard ("A"..."Z").contains(first) || ("a"..."z").contains(first) else { return false }
        return scalars.allSatisfy { ("A"..."Z").contains($0) || ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
