import Foundation
import HTTPServer
import Lifecycle
import ScorecastLogging
import Synchronization

/// A stand-in for APNs on loopback: channel management, broadcasts and device pushes over
/// HTTP/2 and TLS, with Apple's validation rules, provider-token checks, per-channel budgets,
/// fault injection and an admin API for inspection and control.
///
/// ```swift
/// let simulator = try APNsSimulator(configuration: SimulatorConfiguration(teams: [team]), logger: logger)
/// let endpoints = try simulator.start()        // ports and CA file
/// let shutdown = ShutdownSignal()
/// async let running: Void = simulator.run(until: shutdown)
/// // … talk to https://localhost:\(endpoints.sendPort) trusting endpoints.caCertificatePath …
/// shutdown.trigger(); try await running
/// ```
///
/// The HTTP/2 ports run on their own event-loop threads (one per port), never on Swift's
/// cooperative pool; the admin API runs on `HTTPServer`.
public final class APNsSimulator: Service {
    /// `apns-sim`, for logs.
    public let name = "apns-sim"
    /// The configuration the simulator was created with.
    public let configuration: SimulatorConfiguration

    private let state: SimulatorState
    private let logger: Logger
    private let phase = Mutex<Phase>(.idle)

    private enum Phase {
        case idle
        case running(Running)
        case stopped
    }

    private struct Running {
        let endpoints: SimulatorEndpoints
        let send: H2Server
        let management: H2Server
        let admin: HTTPServer
    }

    /// Checks the configuration and registers its teams; nothing listens until `start()`.
    public init(configuration: SimulatorConfiguration, logger: Logger) throws(SimulatorError) {
        self.configuration = configuration
        self.state = try SimulatorState(configuration: configuration)
        self.logger = logger
    }

    deinit {
        // Started but never run to its end: stop the loop threads rather than leave them serving.
        if case .running(let running) = phase.withLock({ $0 }) {
            running.send.stopDetached()
            running.management.stopDetached()
        }
    }

    /// Makes or loads the certificate, binds the three ports and starts serving.
    /// Throws if already started or if a port cannot be bound.
    @discardableResult
    public func start() throws(SimulatorError) -> SimulatorEndpoints {
        let result: Result<SimulatorEndpoints, SimulatorError> = phase.withLock { phase in
            guard case .idle = phase else { return .failure(.state("the simulator was already started")) }
            do {
                let running = try launch()
                phase = .running(running)
                return .success(running.endpoints)
            } catch let error as SimulatorError {
                return .failure(error)
            } catch {
                return .failure(.state("\(error)"))
            }
        }
        let endpoints = try result.get()
        logger.info("APNs simulator listening", [
            "send_port": String(endpoints.sendPort), "management_port": String(endpoints.managementPort),
            "admin_port": String(endpoints.adminPort), "ca_certificate": endpoints.caCertificatePath,
        ])
        return endpoints
    }

    private func launch() throws -> Running {
        let paths = try SimulatorCertificate.paths(for: configuration)
        if paths.generated { logger.info("generated a self-signed certificate", ["path": paths.certificate]) }
        let tls = try TLSContext(certificatePath: paths.certificate, privateKeyPath: paths.key)
        let send = try H2Server(
            name: "send", host: configuration.host, port: configuration.sendPort, tls: tls,
            handler: APNsRequestHandler(port: .send, state: state, logger: logger), logger: logger)
        let management = try H2Server(
            name: "management", host: configuration.host, port: configuration.managementPort, tls: tls,
            handler: APNsRequestHandler(port: .management, state: state, logger: logger), logger: logger)
        var adminConfiguration = HTTPServerConfiguration(host: configuration.adminHost, port: configuration.adminPort)
        adminConfiguration.accessLog = false
        adminConfiguration.threadCount = 2
        adminConfiguration.shutdownGracePeriod = .seconds(1)
        let admin = HTTPServer(configuration: adminConfiguration, router: AdminRouter.make(state: state), logger: logger.named("apns-sim-admin"))

        let sendPort = try send.start()
        let managementPort: Int
        do {
            managementPort = try management.start()
            do {
                try admin.start()
            } catch {
                throw SimulatorError.state("the admin API cannot listen on \(configuration.adminHost):\(configuration.adminPort): \(error)")
            }
        } catch {
            // Leave nothing half-started behind.
            send.stopDetached()
            management.stopDetached()
            throw error
        }
        state.observeStreamLimit { [send, management] _ in
            send.refreshStreamLimits()
            management.refreshStreamLimits()
        }
        let endpoints = SimulatorEndpoints(
            sendPort: sendPort, managementPort: managementPort, adminPort: admin.port,
            caCertificatePath: URL(fileURLWithPath: paths.certificate).standardizedFileURL.path)
        return Running(endpoints: endpoints, send: send, management: management, admin: admin)
    }

    /// Serves until `shutdown` is triggered (starting first if needed), then closes every
    /// connection and port.
    public func run(until shutdown: ShutdownSignal) async throws {
        if case .idle = phase.withLock({ $0 }) { try start() }
        guard case .running(let running) = phase.withLock({ $0 }) else { return }
        try await running.admin.run(until: shutdown)
        // Held answers go out before the loops close their connections (the loops run the
        // posted answers before they stop), so no client waits on a stream that never ends.
        state.heldAnswers.setHolding(false)
        await running.send.stop()
        await running.management.stop()
        if let error = state.persist() { logger.error("could not save the simulator's channels and budgets", ["error": "\(error)"]) }
        phase.withLock { $0 = .stopped }
        logger.info("APNs simulator stopped")
    }

    /// The ports and CA file, once started.
    public var endpoints: SimulatorEndpoints? {
        guard case .running(let running) = phase.withLock({ $0 }) else { return nil }
        return running.endpoints
    }

    // MARK: - Control (mirrors the admin API)

    /// Accepts tokens of `team` from now on (replacing a team with the same key id).
    public func registerTeam(_ team: SimulatorTeam) throws(SimulatorError) { try state.verifier.register(team) }

    /// The registered teams.
    public var teams: [SimulatorTeam] { state.verifier.teams }

    /// Replaces the active faults.
    public func setFaults(_ faults: SimulatorFaults) throws(SimulatorError) { try state.setFaults(faults) }

    /// The active faults, with "next N" counters as they stand.
    public var faults: SimulatorFaults { state.faults }

    /// How many broadcast answers the `holdAnswers` fault holds now.
    public var heldAnswerCount: Int { state.heldAnswers.count }

    /// Answers the broadcasts held now; the hold stays on for later ones. Returns how many.
    @discardableResult
    public func releaseHeldAnswers() -> Int { state.heldAnswers.releaseAll() }

    /// Changes the per-app channel limit (existing channels are kept).
    public func setChannelLimit(_ limit: Int) throws(SimulatorError) { try state.setChannelLimit(limit) }

    /// Changes the hourly priority-10 budget per channel (`nil`: unlimited), and optionally a
    /// separate one for No-Message-Stored channels.
    public func setBudget(perHour: Int?, noMessageStoredPerHour: Int? = nil) throws(SimulatorError) {
        try state.setBudget(perHour: perHour, noMessageStoredPerHour: noMessageStoredPerHour)
    }

    /// Changes whether `429 TooManyRequests` carries `Retry-After`.
    public func setRetryAfter(_ policy: RetryAfterPolicy) throws(SimulatorError) { try state.setRetryAfter(policy) }

    /// Makes device pushes to `token` answer `410 Unregistered` (timestamp in UNIX ms, now if nil).
    public func unregisterDeviceToken(_ token: String, timestampMilliseconds: Int? = nil) throws(SimulatorError) {
        try state.unregisterDeviceToken(token, timestampMilliseconds: timestampMilliseconds)
    }

    /// Received requests, oldest first (those after sequence `since`, at most the last `limit`).
    public func receivedRequests(since: Int = 0, limit: Int? = nil) -> [SimulatorReceivedRequest] {
        state.receivedRequests(since: since, limit: limit)
    }

    /// Every channel, oldest first.
    public func channels() -> [SimulatorChannel] { state.channelList() }

    /// Device tokens that received Live Activity pushes or were marked unregistered, by token.
    public func deviceTokens() -> [SimulatorDeviceToken] { state.deviceTokenList() }

    /// The budget position of every channel.
    public func budgets() -> [SimulatorBudgetUsage] { state.budgetUsage() }

    /// Totals since start or reset.
    public func statistics() -> SimulatorStatistics { state.statistics() }

    /// Forgets channels, budgets, received requests, unregistered tokens and faults.
    public func reset() { state.reset() }
}
