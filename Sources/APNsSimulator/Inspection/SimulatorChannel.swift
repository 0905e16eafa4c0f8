/// A channel the simulator holds.
public struct SimulatorChannel: Sendable, Equatable, Codable {
    /// The channel id (base64).
    public let id: String
    /// The app it belongs to.
    public let bundleID: String
    /// 0 (No Message Stored) or 1 (Most Recent Message Stored).
    public let messageStoragePolicy: Int
    /// When it was created (UNIX seconds).
    public let createdAt: Double
}
