import Arguments
import Foundation
import Lifecycle
import ScorecastLogging

/// `scorecast apns-sim`: command-line flags (and an optional JSON config file) to a
/// `SimulatorConfiguration`, and the run loop that prints the endpoints line.
public enum SimulatorCommand {
    /// The usage text for `--help`.
    public static let helpText = """
    USAGE: scorecast apns-sim [options]

    Runs a local stand-in for APNs (HTTP/2 over TLS) and prints one JSON line to stdout:
      {"sendPort":…,"managementPort":…,"adminPort":…,"caCertificate":"…"}

    Listening:
      --host ADDRESS            address the send and management ports bind (default 127.0.0.1)
      --admin-host ADDRESS      address the admin API binds (default 127.0.0.1 whatever --host
                                is: the admin API has no authentication)
      --send-port N             broadcasts and device pushes (default 0: any free port)
      --management-port N       channel management (default 0)
      --admin-port N            admin API, HTTP/1.1 JSON (default 0)
      --state-dir PATH          where the generated certificate is kept (default .scorecast/apns-sim)
      --cert PATH --key PATH    serve this PEM certificate and key instead of a generated one
      --max-streams N           SETTINGS_MAX_CONCURRENT_STREAMS to advertise (default 1000)
      --one-stream-until-auth   start each connection at one stream until a valid token is seen
                                (as APNs does; off by default)

    Credentials:
      --team TEAMID:KEYID:PUBLIC_KEY.pem:BUNDLE[,BUNDLE…]
                                accept provider tokens of this team for these apps (repeatable)
      --config FILE.json        settings as JSON (flags given on the command line win):
                                {"host", "adminHost", "sendPort", "managementPort", "adminPort", "stateDirectory",
                                 "certificatePath", "privateKeyPath", "channelLimit", "budgetPerHour",
                                 "noMessageStoredBudgetPerHour", "retryAfter", "allowsPriorityOneBroadcasts",
                                 "maxConcurrentStreams", "oneStreamUntilAuthenticated", "requestLogCapacity",
                                 "faults": {…},
                                 "teams": [{"teamID", "keyID", "publicKeyPath" or "publicKeyPEM", "bundleIDs"}]}

    Limits:
      --channel-limit N         channels per app (default 10000, Apple's limit)
      --budget N|unlimited      priority-10 broadcasts per channel per rolling hour (default 12)
      --no-storage-budget N     a separate budget for No-Message-Stored channels
      --retry-after none|auto|N Retry-After on 429 TooManyRequests (default none)
      --allow-priority-1        accept apns-priority 1 on broadcasts (unconfirmed for APNs)
      --request-log N           requests kept for GET /requests (default 1000)

    Faults (also settable at run time: POST /faults on the admin port):
      --fail-next N             answer the next N requests with --fail-status
      --fail-percent P          answer P% of requests with --fail-status
      --fail-status 500|503     (default 503)
      --goaway-after N          send GOAWAY once a connection has opened N streams
      --reset-next N            reset the next N streams (RST_STREAM)
      --reset-percent P         reset P% of streams
      --latency-ms N            delay every answer by N ms
      --black-hole              accept requests and never answer
    """

    /// The options of `apns-sim` (their help is ``helpText``).
    static let options: [OptionSpec] = [
        "host", "admin-host", "send-port", "management-port", "admin-port", "state-dir", "cert", "key", "max-streams", "config",
        "channel-limit", "budget", "no-storage-budget", "retry-after", "request-log",
        "fail-next", "fail-percent", "fail-status", "goaway-after", "reset-next", "reset-percent", "latency-ms",
    ].map { OptionSpec.value($0, "VALUE", "see apns-sim --help") }
        + [OptionSpec.value("team", "TEAMID:KEYID:PUBLIC_KEY.pem:BUNDLE[,BUNDLE…]", repeatable: true, "see apns-sim --help")]
        + ["allow-priority-1", "one-stream-until-auth", "black-hole"].map { OptionSpec.flag($0, "see apns-sim --help") }

    /// Whether the arguments ask for help (`--help` or `-h`).
    public static func wantsHelp(_ arguments: [String]) -> Bool {
        arguments.contains("--help") || arguments.contains("-h")
    }

    /// Parses the arguments after `apns-sim`. A `--config` file is read first, so that flags on
    /// the command line override it. Throws `SimulatorError.invalidConfiguration` naming the
    /// offending flag or value, `.file` for an unreadable file.
    public static func parse(arguments: [String]) throws(SimulatorError) -> SimulatorConfiguration {
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, options: options)
        } catch {
            throw .invalidConfiguration("\(error.message) (see --help)")
        }
        if let unexpected = parsed.positionals.first {
            throw .invalidConfiguration("unexpected argument '\(unexpected)' (see --help)")
        }
        var configuration = SimulatorConfiguration()
        if let path = parsed.value("config") {
            configuration = try SimulatorConfigFile.load(path: path)
        }
        var faults = configuration.faults
        for (name, given) in parsed.given {
            let flag = "--" + name
            let value = given ?? ""
            switch flag {
            case "--config": break
            case "--host": configuration.host = value
            case "--admin-host": configuration.adminHost = value
            case "--send-port": configuration.sendPort = try integer(flag, value)
            case "--management-port": configuration.managementPort = try integer(flag, value)
            case "--admin-port": configuration.adminPort = try integer(flag, value)
            case "--state-dir": configuration.stateDirectory = value
            case "--cert": configuration.certificatePath = value
            case "--key": configuration.privateKeyPath = value
            case "--max-streams": configuration.maxConcurrentStreams = try integer(flag, value)
            case "--team": configuration.teams.append(try team(value))
            case "--channel-limit": configuration.channelLimit = try integer(flag, value)
            case "--budget": configuration.budgetPerHour = value == "unlimited" ? nil : try integer(flag, value)
            case "--no-storage-budget": configuration.noMessageStoredBudgetPerHour = value == "unlimited" ? nil : try integer(flag, value)
            case "--retry-after":
                guard let policy = RetryAfterPolicy(argument: value) else {
                    throw .invalidConfiguration("--retry-after takes none, auto or a number of seconds, got '\(value)'")
                }
                configuration.retryAfter = policy
            case "--allow-priority-1": configuration.allowsPriorityOneBroadcasts = true
            case "--one-stream-until-auth": configuration.oneStreamUntilAuthenticated = true
            case "--request-log": configuration.requestLogCapacity = try integer(flag, value)
            case "--fail-next": faults.failNext = try integer(flag, value)
            case "--fail-percent": faults.failPercent = try number(flag, value)
            case "--fail-status": faults.failStatus = try integer(flag, value)
            case "--goaway-after": faults.goAwayAfterStreams = try integer(flag, value)
            case "--reset-next": faults.resetNext = try integer(flag, value)
            case "--reset-percent": faults.resetPercent = try number(flag, value)
            case "--latency-ms": faults.latencyMilliseconds = try integer(flag, value)
            case "--black-hole": faults.blackHole = true
            default: throw .invalidConfiguration("unknown option \(flag) (see --help)")  // the parser refused it already
            }
        }
        configuration.faults = faults
        try configuration.validate()
        return configuration
    }

    /// Runs `scorecast apns-sim`: parses, starts, prints the endpoints line to stdout, serves
    /// until SIGTERM or SIGINT. Returns the exit code (0, 2 for bad arguments, 1 for a failure).
    public static func run(arguments: [String], logger: Logger) async -> Int32 {
        if wantsHelp(arguments) {
            print(helpText)
            fflush(nil)
            return 0
        }
        let simulator: APNsSimulator
        let endpoints: SimulatorEndpoints
        do {
            simulator = try APNsSimulator(configuration: try parse(arguments: arguments), logger: logger)
        } catch {
            logger.error("apns-sim: \(error.description)")
            return 2
        }
        do {
            endpoints = try simulator.start()
        } catch {
            logger.error("apns-sim: \(error.description)")
            return 1
        }
        if simulator.teams.isEmpty {
            // Only here: the standalone simulator learns teams from --team or POST /teams; the
            // one `serve` runs registers every app itself.
            logger.warning("no teams registered: every provider token will be refused until one is added (--team, POST /teams)")
        }
        print(endpoints.jsonLine)
        fflush(nil)
        do {
            try await ServiceGroup(services: [simulator], logger: logger).run()
            return 0
        } catch {
            logger.error("apns-sim failed: \(error)")
            return 1
        }
    }

    private static func integer(_ flag: String, _ value: String) throws(SimulatorError) -> Int {
        guard let number = Int(value) else { throw .invalidConfiguration("\(flag) takes a whole number, got '\(value)'") }
        return number
    }

    private static func number(_ flag: String, _ value: String) throws(SimulatorError) -> Double {
        guard let number = Double(value), number.isFinite else { throw .invalidConfiguration("\(flag) takes a number, got '\(value)'") }
        return number
    }

    /// `TEAMID:KEYID:path/to/key.pem:bundle1,bundle2`; the path may itself contain `:`.
    static func team(_ value: String) throws(SimulatorError) -> SimulatorTeam {
        let parts = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4 else {
            throw .invalidConfiguration("--team takes TEAMID:KEYID:PUBLIC_KEY.pem:BUNDLE[,BUNDLE…], got '\(value)'")
        }
        let path = parts[2..<(parts.count - 1)].joined(separator: ":")
        let bundles = parts[parts.count - 1].split(separator: ",").map { String($0).trimmingASCIISpaces() }.filter { !$0.isEmpty }
        let pem = try SimulatorConfigFile.read(path)
        return SimulatorTeam(teamID: parts[0], keyID: parts[1], publicKeyPEM: pem, bundleIDs: bundles)
    }
}
