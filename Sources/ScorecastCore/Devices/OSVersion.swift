/// An iOS version as the app reports it (`UIDevice.current.systemVersion`: `17.2`, `18.0.1`),
/// and what it can do with Live Activities.
public struct OSVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The first iOS that accepts push-to-start tokens.
    public static let pushToStart = OSVersion(major: 17, minor: 2)
    /// The first iOS whose activities can subscribe to a broadcast channel (`input-push-channel`).
    public static let channels = OSVersion(major: 18, minor: 0)

    public let major: Int
    public let minor: Int
    public let patch: Int

    /// Creates a version.
    public init(major: Int, minor: Int = 0, patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// Reads `major[.minor[.patch]]`, each 1–3 digits; `nil` otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ (48...57).contains($0) }), let number = Int(part) else { return nil }
            numbers.append(number)
        }
        self.init(major: numbers[0], minor: numbers.count > 1 ? numbers[1] : 0, patch: numbers.count > 2 ? numbers[2] : 0)
    }

    /// Whether an activity started on this version can listen to a channel.
    public var supportsChannels: Bool { self >= Self.channels }
    /// Whether the system hands out push-to-start tokens.
    public var supportsPushToStart: Bool { self >= Self.pushToStart }

    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    /// `18.0.1`.
    public var description: String { "\(major).\(minor).\(patch)" }
}
