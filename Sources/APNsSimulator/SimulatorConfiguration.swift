import Foundation

/// Everything the simulator needs to start: where to listen, its TLS identity, who may call it,
/// the limits it enforces and the faults to begin with.
public struct SimulatorConfiguration: Sendable {
    /// The address the send and management ports bind (loopback by default).
    public var host: String
    /// The address the admin API binds: loopback unless set on purpose, whatever `host` is,
    /// because the admin API has no authentication (it injects faults, adds teams and lists
    /// what was received).
    public var adminHost: String
    /// The send port (broadcasts, device pushes); 0 picks a free one.
    public var sendPort: Int
    /// The channel-management port; 0 picks a free one.
    public var managementPort: Int
    /// The admin API port (plain HTTP/1.1 JSON); 0 picks a free one.
    public var adminPort: Int
    /// Where the generated certificate and key are kept.
    public var stateDirectory: String
    /// A PEM certificate (chain) to serve instead of a generated one; needs `privateKeyPath`.
    public var certificatePath: String?
    /// The PEM private key of `certificatePath`.
    public var privateKeyPath: String?
    /// Teams whose provider tokens are accepted (more can be added at run time).
    public var teams: [SimulatorTeam]
    /// Channels allowed per app (bundle id) in this environment; Apple's limit is 10,000.
    public var channelLimit: Int
    /// Priority-10 broadcasts allowed per channel in a rolling hour; `nil` means unlimited.
    /// Apple publishes no figure (apns.md §5): the default is a conservative guess.
    public var budgetPerHour: Int?
    /// A separate hourly budget for No-Message-Stored channels (Apple: "a higher publishing
    /// budget"); `nil` uses `budgetPerHour`.
    public var noMessageStoredBudgetPerHour: Int?
    /// Whether and how `429 TooManyRequests` carries `Retry-After` (unconfirmed for APNs).
    public var retryAfter: RetryAfterPolicy
    /// Whether broadcasts may use `apns-priority: 1` (unconfirmed for Live Activities, apns.md §3).
    public var allowsPriorityOneBroadcasts: Bool
    /// The SETTINGS_MAX_CONCURRENT_STREAMS advertised (APNs has been seen at 500–1,500).
    public var maxConcurrentStreams: Int
    /// Start every connection with a limit of one stream, raised to `maxConcurrentStreams` once a
    /// request carries a valid provider token, as Apple documents for token authentication.
    /// Off by default: clients that open many streams before the server's SETTINGS arrive see
    /// the extra ones refused (REFUSED_STREAM), which load tools like h2load count as errors.
    public var oneStreamUntilAuthenticated: Bool
    /// A provider token older than this many seconds gets `403 ExpiredProviderToken` (Apple: one hour).
    public var tokenLifetime: Double
    /// A connection that switches to a token issued less than this many seconds after its
    /// previous one gets `429 TooManyProviderTokenUpdates` (Apple: 20 minutes).
    public var tokenRefreshMinimum: Double
    /// How many received requests the admin API keeps (a ring buffer).
    public var requestLogCapacity: Int
    /// The faults active from the start.
    public var faults: SimulatorFaults
    /// Where time comes from.
    public var clock: any SimulatorClock
    /// Whether channels and budgets are kept in `<stateDirectory>/state.json` across restarts
    /// (the built-in simulator of `scorecast serve` does; tests start empty).
    public var persistsState = false

    /// The default hourly priority-10 budget per channel.
    public static let defaultBudgetPerHour = 12
    /// Apple's documented channel limit per app and environment.
    public static let defaultChannelLimit = 10_000

    /// A configuration with Apple's documented limits and every port picked by the system.
    public init(
        host: String = "127.0.0.1",
        adminHost: String = "127.0.0.1",
        sendPort: Int = 0,
        managementPort: Int = 0,
        adminPort: Int = 0,
        stateDirectory: String = ".scorecast/apns-sim",
        certificatePath: String? = nil,
        privateKeyPath: String? = nil,
        teams: [SimulatorTeam] = [],
        channelLimit: Int = SimulatorConfiguration.defaultChannelLimit,
        budgetPerHour: Int? = SimulatorConfiguration.defaultBudgetPerHour,
        noMessageStoredBudgetPerHour: Int? = nil,
        retryAfter: RetryAfterPolicy = .none,
        allowsPriorityOneBroadcasts: Bool = false,
        maxConcurrentStreams: Int = 1000,
        oneStreamUntilAuthenticated: Bool = false,
        tokenLifetime: Double = 3600,
        tokenRefreshMinimum: Double = 1200,
        requestLogCapacity: Int = 1000,
        faults: SimulatorFaults = .none,
        clock: any SimulatorClock = SystemSimulatorClock()
    ) {
        self.host = host
        self.adminHost = adminHost
        self.sendPort = sendPort
        self.managementPort = managementPort
        self.adminPort = adminPort
        self.stateDirectory = stateDirectory
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.teams = teams
        self.channelLimit = channelLimit
        self.budgetPerHour = budgetPerHour
        self.noMessageStoredBudgetPerHour = noMessageStoredBudgetPerHour
        self.retryAfter = retryAfter
        self.allowsPriorityOneBroadcasts = allowsPriorityOneBroadcasts
        self.maxConcurrentStreams = maxConcurrentStreams
        self.oneStreamUntilAuthenticated = oneStreamUntilAuthenticated
        self.tokenLifetime = tokenLifetime
        self.tokenRefreshMinimum = tokenRefreshMinimum
        self.requestLogCapacity = requestLogCapacity
        self.faults = faults
        self.clock = clock
    }

    /// Checks every value; the error names the first wrong one.
    public func validate() throws(SimulatorError) {
        for (name, port) in [("send port", sendPort), ("management port", managementPort), ("admin port", adminPort)] {
            guard (0...65_535).contains(port) else { throw .invalidConfiguration("\(name) \(port) is outside 0…65535") }
        }
        guard !host.isEmpty else { throw .invalidConfiguration("host is empty") }
        guard !adminHost.isEmpty else { throw .invalidConfiguration("admin host is empty") }
        guard (certificatePath == nil) == (privateKeyPath == nil) else {
            throw .invalidConfiguration("--cert and --key go together: give both or neither")
        }
        guard channelLimit >= 0 else { throw .invalidConfiguration("channel limit must be ≥ 0, got \(channelLimit)") }
        if let budgetPerHour, budgetPerHour < 0 { throw .invalidConfiguration("budget must be ≥ 0, got \(budgetPerHour)") }
        if let noMessageStoredBudgetPerHour, noMessageStoredBudgetPerHour < 0 {
            throw .invalidConfiguration("no-message-stored budget must be ≥ 0, got \(noMessageStoredBudgetPerHour)")
        }
        if case .seconds(let seconds) = retryAfter, seconds < 0 {
            throw .invalidConfiguration("retry-after must be ≥ 0 seconds, got \(seconds)")
        }
        guard (1...Int(UInt32.max)).contains(maxConcurrentStreams) else {
            throw .invalidConfiguration("max concurrent streams must be ≥ 1, got \(maxConcurrentStreams)")
        }
        guard tokenLifetime > 0, tokenRefreshMinimum >= 0 else {
            throw .invalidConfiguration("token lifetime must be > 0 and refresh minimum ≥ 0")
        }
        guard requestLogCapacity >= 0 else { throw .invalidConfiguration("request log capacity must be ≥ 0") }
        var seenKeys = Set<String>()
        for team in teams {
            try TeamRules.validate(team)
            guard seenKeys.insert(team.keyID).inserted else {
                throw .invalidConfiguration("key id \(team.keyID) is registered twice")
            }
        }
        try faults.validate()
    }
}

/// Whether `429 TooManyRequests` answers carry `Retry-After`. APNs' use of it is unconfirmed
/// (apns.md §8), so it is a setting.
public enum RetryAfterPolicy: Sendable, Equatable, Codable {
    /// No `Retry-After` header.
    case none
    /// A fixed number of seconds.
    case seconds(Int)
    /// The seconds until the channel's oldest counted send leaves the rolling hour.
    case untilBudgetFrees

    /// Parses `none`, `auto` or a number of seconds.
    public init?(argument: String) {
        switch argument {
        case "none": self = .none
        case "auto": self = .untilBudgetFrees
        default:
            guard let seconds = Int(argument), seconds >= 0 else { return nil }
            self = .seconds(seconds)
        }
    }

    /// The command-line spelling (`none`, `auto` or seconds).
    public var argument: String {
        switch self {
        case .none: "none"
        case .untilBudgetFrees: "auto"
        case .seconds(let seconds): String(seconds)
        }
    }
}
