/// The APNs environment an app and its channels belong to (apns.md §1). A sandbox channel does
/// not exist in production.
public enum APNsEnvironment: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Development builds.
    case sandbox
    /// App Store and TestFlight builds.
    case production

    /// Apple's default host for broadcast sends and device pushes (port 443). A setting in the
    /// application, because Apple's pages also name `api-broadcast[.sandbox].push.apple.com`.
    public var defaultSendHost: String {
        switch self {
        case .sandbox: "api.sandbox.push.apple.com"
        case .production: "api.push.apple.com"
        }
    }

    /// The default port of ``defaultSendHost``.
    public var defaultSendPort: Int { 443 }

    /// Apple's channel-management host.
    public var defaultManagementHost: String {
        switch self {
        case .sandbox: "api-manage-broadcast.sandbox.push.apple.com"
        case .production: "api-manage-broadcast.push.apple.com"
        }
    }

    /// The channel-management port: 2195 in sandbox, 2196 in production.
    public var defaultManagementPort: Int {
        switch self {
        case .sandbox: 2195
        case .production: 2196
        }
    }

    /// The text shown in logs and error messages.
    public var description: String { rawValue }
}
