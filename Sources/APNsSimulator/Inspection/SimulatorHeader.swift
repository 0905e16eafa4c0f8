/// One header as the simulator received or sent it.
public struct SimulatorHeader: Sendable, Equatable, Codable {
    /// The lower-case header name.
    public let name: String
    /// The value (`bearer <redacted>` for `authorization`).
    public let value: String

    /// Creates a header.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
