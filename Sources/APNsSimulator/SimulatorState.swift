import Foundation
import Synchronization

/// Everything the simulator's ports share: channels, budgets, faults, teams, the request log.
///
/// The HTTP/2 loop threads and the admin API reach it concurrently; each part sits behind its
/// own lock, and the per-request fault checks read atomics so that a fault-free request takes
/// no fault lock at all.
final class SimulatorState: Sendable {
    /// Limits that can change at run time.
    struct Settings: Sendable {
        var channelLimit: Int
        var budgetPerHour: Int?
        var noMessageStoredBudgetPerHour: Int?
        var retryAfter: RetryAfterPolicy
        var allowsPriorityOneBroadcasts: Bool

        /// The hourly priority-10 budget of a channel with `policy`.
        func budget(for policy: MessageStoragePolicy) -> Int? {
            policy == .noMessageStored ? (noMessageStoredBudgetPerHour ?? budgetPerHour) : budgetPerHour
        }
    }

    struct Core: Sendable {
        var channels = ChannelStore()
        var budgets = BudgetLedger()
        /// Bumped by every change worth saving (channels and budgets).
        var generation: UInt64 = 0
        var faults: FaultPlan
        var settings: Settings
        /// Device tokens answered with `410 Unregistered`, and since when (UNIX milliseconds).
        var unregisteredTokens: [String: Int] = [:]
        /// Live Activity pushes accepted per device token.
        var deviceTokens = DeviceTokenLedger()
    }

    let core: Mutex<Core>
    let log: Mutex<RequestLog>
    /// Where channels and budgets are kept across restarts, when they are.
    let stateFile: SimulatorStateFile?
    let verifier: ProviderTokenVerifier
    let clock: any SimulatorClock
    let authPolicy: ProviderAuthentication.Policy
    /// Whether any per-request fault is set (mirrors `core.faults.isActive`).
    let faultsActive = Atomic<Bool>(false)
    /// GOAWAY after this many streams per connection; 0 is off.
    let goAwayAfterStreams = Atomic<Int>(0)
    /// Broadcast answers held by the `holdAnswers` fault.
    let heldAnswers = HeldAnswers()
    /// The stream limit advertised to authenticated connections.
    let maxConcurrentStreams: Atomic<UInt32>
    /// Whether a connection starts with a limit of one stream until a request authenticates.
    let oneStreamUntilAuthenticated: Bool
    private let configuredMaxConcurrentStreams: UInt32
    private let streamLimitObservers = Mutex<[@Sendable (UInt32) -> Void]>([])

    init(configuration: SimulatorConfiguration) throws(SimulatorError) {
        try configuration.validate()
        verifier = try ProviderTokenVerifier(teams: configuration.teams)
        clock = configuration.clock
        authPolicy = .init(lifetime: configuration.tokenLifetime, refreshMinimum: configuration.tokenRefreshMinimum)
        configuredMaxConcurrentStreams = UInt32(configuration.maxConcurrentStreams)
        oneStreamUntilAuthenticated = configuration.oneStreamUntilAuthenticated
        maxConcurrentStreams = Atomic(UInt32(configuration.faults.maxConcurrentStreams ?? configuration.maxConcurrentStreams))
        let settings = Settings(
            channelLimit: configuration.channelLimit,
            budgetPerHour: configuration.budgetPerHour,
            noMessageStoredBudgetPerHour: configuration.noMessageStoredBudgetPerHour,
            retryAfter: configuration.retryAfter,
            allowsPriorityOneBroadcasts: configuration.allowsPriorityOneBroadcasts)
        var initial = Core(faults: FaultPlan(faults: configuration.faults), settings: settings)
        stateFile = configuration.persistsState ? SimulatorStateFile(stateDirectory: configuration.stateDirectory) : nil
        if let saved = try stateFile?.load() {
            initial.channels = ChannelStore(records: saved.channels)
            initial.budgets = saved.budgets
        }
        core = Mutex(initial)
        log = Mutex(RequestLog(capacity: configuration.requestLogCapacity))
        publishFaultFlags(configuration.faults)
    }

    // MARK: - Faults

    /// The faults in force (with "next N" counters as they stand).
    var faults: SimulatorFaults { core.withLock { $0.faults.faults } }

    /// Replaces the faults; a new stream limit is advertised on open connections too.
    func setFaults(_ faults: SimulatorFaults) throws(SimulatorError) {
        try faults.validate()
        apply(faults)
    }

    private func apply(_ faults: SimulatorFaults) {
        // The flags change under the same lock as the faults, so a request drawing a fault
        // concurrently cannot publish a stale "inactive" over the new faults.
        core.withLock { core in
            core.faults.replace(with: faults)
            publishFaultFlags(faults)
        }
        let limit = UInt32(faults.maxConcurrentStreams ?? Int(configuredMaxConcurrentStreams))
        if maxConcurrentStreams.exchange(limit, ordering: .acquiringAndReleasing) != limit {
            for observer in streamLimitObservers.withLock({ $0 }) { observer(limit) }
        }
    }

    /// Draws the fault decision for one request (only called while `faultsActive`).
    func drawFault() -> (FaultPlan.Decision, latencyMilliseconds: Int) {
        core.withLock { core in
            let decision = core.faults.decide { Double.random(in: 0..<100) }
            if !core.faults.isActive { faultsActive.store(false, ordering: .releasing) }
            return (decision, core.faults.faults.latencyMilliseconds)
        }
    }

    /// Calls `observer` whenever the advertised stream limit changes.
    func observeStreamLimit(_ observer: @escaping @Sendable (UInt32) -> Void) {
        streamLimitObservers.withLock { $0.append(observer) }
    }

    private func publishFaultFlags(_ faults: SimulatorFaults) {
        faultsActive.store(FaultPlan(faults: faults).isActive, ordering: .releasing)
        goAwayAfterStreams.store(faults.goAwayAfterStreams ?? 0, ordering: .releasing)
        // Clearing the hold releases the held answers (they only post to the loops' mailboxes).
        heldAnswers.setHolding(faults.holdAnswers)
    }

    // MARK: - Settings

    /// Changes the per-app channel limit (existing channels stay).
    func setChannelLimit(_ limit: Int) throws(SimulatorError) {
        guard limit >= 0 else { throw .invalidConfiguration("channel limit must be ≥ 0, got \(limit)") }
        core.withLock { $0.settings.channelLimit = limit }
    }

    /// Changes the hourly priority-10 budgets (`nil`: unlimited; `noMessageStored` `nil`: same).
    func setBudget(perHour: Int?, noMessageStoredPerHour: Int?) throws(SimulatorError) {
        if let perHour, perHour < 0 { throw .invalidConfiguration("budget must be ≥ 0, got \(perHour)") }
        if let noMessageStoredPerHour, noMessageStoredPerHour < 0 {
            throw .invalidConfiguration("no-message-stored budget must be ≥ 0, got \(noMessageStoredPerHour)")
        }
        core.withLock {
            $0.settings.budgetPerHour = perHour
            $0.settings.noMessageStoredBudgetPerHour = noMessageStoredPerHour
        }
    }

    /// Changes the `Retry-After` policy of `429 TooManyRequests`.
    func setRetryAfter(_ policy: RetryAfterPolicy) throws(SimulatorError) {
        if case .seconds(let seconds) = policy, seconds < 0 {
            throw .invalidConfiguration("retry-after must be ≥ 0 seconds, got \(seconds)")
        }
        core.withLock { $0.settings.retryAfter = policy }
    }

    /// The settings in force.
    var settings: Settings { core.withLock { $0.settings } }

    // MARK: - Devices

    /// Makes pushes to `token` answer `410 Unregistered` with `timestamp` (UNIX ms; now if nil).
    func unregisterDeviceToken(_ token: String, timestampMilliseconds: Int?) throws(SimulatorError) {
        guard Identifiers.isWellFormedDeviceToken(token) else {
            throw .invalidConfiguration("device token must be 64–512 hex digits")
        }
        let stamp = timestampMilliseconds ?? Int(clock.now() * 1000)
        core.withLock { $0.unregisteredTokens[token.lowercased()] = stamp }
    }

    // MARK: - Persistence

    /// Saves channels and budgets when the state is kept across restarts. Called after a
    /// channel create or delete and on stop; a failure is returned for the caller to log.
    func persist() -> (any Error)? {
        guard let stateFile else { return nil }
        let (snapshot, generation) = core.withLock { core in
            core.generation += 1
            return (SimulatorStateFile.Snapshot(channels: core.channels.all, budgets: core.budgets), core.generation)
        }
        do {
            try stateFile.save(snapshot, generation: generation)
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Reset

    /// Forgets channels, budgets, received requests, unregistered tokens and faults; teams and
    /// limits stay.
    func reset() {
        core.withLock { core in
            core.channels.removeAll()
            core.budgets.removeAll()
            core.unregisteredTokens.removeAll()
            core.deviceTokens.removeAll()
        }
        apply(.none)
        log.withLock { $0.removeAll() }
    }
}
