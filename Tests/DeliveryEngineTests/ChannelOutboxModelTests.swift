import APNsCore
import DeliveryEngine
import Foundation
import JSON
import ScorecastCore
import Testing
import TestSupport

/// Long random games driven through one ``ChannelOutbox``: updates, claims by several workers,
/// every class of APNs answer, workers that die holding a lease, and time jumping by seconds or
/// hours; then the channel is drained with APNs answering. Whatever happened, what APNs
/// accepted must keep the channel's promise (the invariants in ``Model/check()``).
///
/// Seeded: the same games every run unless `SCORECAST_ENGINE_SEED=<seed>` picks others (to
/// explore, or to replay a failure, which names its seed); a run takes about a second.
@Suite struct ChannelOutboxModelTests {
    static let games = 300
    static let stepsPerGame = 250

    @Test func randomGamesKeepTheChannelsPromise() throws {
        let seed = ProcessInfo.processInfo.environment["SCORECAST_ENGINE_SEED"].flatMap { UInt64($0) }
            ?? 20_261_207
        var seeds = SeededGenerator(seed: seed)
        for game in 0..<Self.games {
            let gameSeed = seeds.next()
            var model = Model(seed: gameSeed)
            model.play(steps: Self.stepsPerGame)
            model.drain()
            let broken = model.check()
            #expect(broken.isEmpty, "game \(game) broke the channel's promise (SCORECAST_ENGINE_SEED=\(seed); its own seed \(gameSeed)): \(broken.joined(separator: "; ")); last steps: \(model.trace.suffix(12).joined(separator: " | "))")
            if !broken.isEmpty { return }
        }
    }

    /// A hand-picked game: a goal, then the final whistle queued behind it while APNs holds the
    /// goal's answer; the goal goes as an update, the whistle carries `end`.
    @Test func anAlertQueuedBehindTheFinalWhistleGoesBeforeTheEnd() throws {
        var model = Model(seed: 1)
        model.ingest(.goal)
        let claimed = model.claim(worker: 0)
        let goal = try #require(claimed)
        model.ingest(.final)
        model.answer(goal, with: .response(status: 200, reason: nil, retryAfter: nil))
        model.drain()
        #expect(model.check() == [])
        #expect(model.accepted.map(\.event) == [.update, .end])
        #expect(model.accepted.map(\.alertKey) == ["1", "2"])
    }
}

/// One random game and the channel's outbox that carries it.
struct Model {
    /// A kind of feed event.
    enum Kind: CaseIterable {
        case tick, goal, card, final

        var isAlerting: Bool { self != .tick }
    }

    /// A send a worker holds.
    struct InFlight {
        var worker: Int
        var claim: ChannelOutbox.Claim
        var isFinal: Bool
    }

    /// A send APNs accepted, as the phones saw it.
    struct Accepted {
        var at: Date
        var event: LiveActivityEvent
        var shown: ShownState?
        var alertKey: String?
        var priority: BroadcastPriority
        var isFinal: Bool
    }

    static let start = Date(timeIntervalSince1970: 1_764_450_000)
    static let rules = ChannelOutbox.Rules(
        budget: BudgetPolicy(profile: BudgetProfile(name: "small", immediatePerHour: 6), finalReserve: 1),
        retry: RetryPolicy(baseDelay: 1, maximumDelay: 60, maximumAttempts: 4, maximumRetryAfter: 120),
        routineInterval: 10, leaseSeconds: 30)

    var random: SeededGenerator
    var outbox: ChannelOutbox
    var now = Model.start
    // The game.
    var home = 0
    var away = 0
    var minute = 0
    var nextEventID = 1
    var ended = false
    var finalKey: String?
    var newest: ShownState?
    // What the test knows happened.
    var alertKeys: [String] = []
    var droppedKeys: Set<String> = []
    var inFlight: [InFlight] = []
    var accepted: [Accepted] = []
    /// 429s: how many sends APNs had accepted before each, and until when it barred priority 10.
    var barred: [(acceptedBefore: Int, until: Date)] = []
    /// States APNs refused for good (never owed again).
    var refused: Set<ShownState> = []
    var notes: [String] = []
    /// What happened, newest last (the tail is printed with a failure).
    var trace: [String] = []

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
        outbox = ChannelOutbox(rules: Model.rules)
    }

    private mutating func roll(_ upper: Int) -> Int { Int(random.next() % UInt64(upper)) }

    // MARK: - Inputs

    /// Plays `steps` random inputs.
    mutating func play(steps: Int) {
        for _ in 0..<steps {
            switch roll(100) {
            case 0..<30:
                guard !ended else { continue }
                let kinds: [Kind] = [.tick, .tick, .tick, .goal, .card]
                ingest(roll(40) == 0 ? .final : kinds[roll(kinds.count)])
            case 30..<50:
                _ = claim(worker: roll(3))
            case 50..<80:
                guard !inFlight.isEmpty else { continue }
                let send = inFlight[roll(inFlight.count)]
                answer(send, with: randomResult())
            case 80..<83:
                // A worker dies holding its sends: they never reach APNs, and its leases run out.
                guard !inFlight.isEmpty else { continue }
                let dead = inFlight[roll(inFlight.count)].worker
                inFlight.removeAll { $0.worker == dead }
                notes.append("worker \(dead) died")
            case 83..<85:
                if outbox.paused {
                    outbox.paused = false
                    notes.append("app resumed")
                }
            case 85..<99:
                now.addTimeInterval(Double(roll(30_000)) / 1000)
            default:
                now.addTimeInterval(Double(600 + roll(3_600)))
            }
        }
    }

    /// Ingests one event of `kind`.
    mutating func ingest(_ kind: Kind) {
        let id = String(nextEventID)
        nextEventID += 1
        var event = LiveActivityEvent.update
        var alert: LiveActivityAlert?
        switch kind {
        case .tick: minute += 1
        case .goal:
            if roll(2) == 0 { home += 1 } else { away += 1 }
            alert = LiveActivityAlert(title: .plain("GOAL"), body: .plain("\(home)-\(away)"))
        case .card: alert = LiveActivityAlert(title: .plain("Card"), body: .plain("minute \(minute)"))
        case .final:
            event = .end
            ended = true
            finalKey = id
            alert = LiveActivityAlert(title: .plain("Full time"), body: .plain("\(home)-\(away)"))
        }
        let state: JSONValue = ["home": .integer(home), "away": .integer(away), "minute": .integer(minute)]
        let payload = LiveActivityPayload(
            timestamp: Int(now.timeIntervalSince1970), event: event, contentState: state,
            dismissalDate: event == .end ? Int(now.timeIntervalSince1970) + 3_600 : nil, alert: alert)
        guard let body = try? payload.encode(for: .broadcast) else {
            notes.append("could not encode event \(id)")
            return
        }
        let update = RenderedUpdate(
            payload: payload, body: body, priority: kind.isAlerting ? .immediate : .opportunistic, isAlerting: kind.isAlerting,
            eventID: id)
        var shownPayload = payload
        shownPayload.alert = nil
        newest = ShownState(payload: shownPayload)
        if alert != nil { alertKeys.append(id) }
        outbox.ingest(update, now: now)
    }

    /// A claim by `worker`: a send it now holds, or `nil`. A send that would repeat the last
    /// accepted one is finished unsent at once, as the worker does.
    mutating func claim(worker: Int) -> InFlight? {
        let finalKey = finalKey
        guard let claim = outbox.claim(owner: "w\(worker)", now: now, isFinal: { $0 == finalKey }) else { return nil }
        // A worker whose lease was taken over is presumed dead: its send never went.
        inFlight.removeAll { $0.worker != worker && $0.claim.claimedAt < now }
        inFlight.removeAll { $0.worker == worker }
        let held = InFlight(worker: worker, claim: claim, isFinal: claim.headAlertKey != nil && claim.headAlertKey == finalKey)
        if claim.plan.repeatsLastAccepted {
            outbox.complete(claim, result: nil, now: now, random: &random)
            return nil
        }
        inFlight.append(held)
        trace.append("\(now.timeIntervalSince(Model.start))s w\(worker) claims v\(claim.version) at \(claim.plan.priority.rawValue), alert \(claim.headAlertKey ?? "-")")
        return held
    }

    /// APNs answers `held`'s send with `result`.
    mutating func answer(_ held: InFlight, with result: SendResult) {
        inFlight.removeAll { $0.worker == held.worker }
        let effects = outbox.complete(held.claim, result: result, now: now, random: &random)
        trace.append("\(now.timeIntervalSince(Model.start))s w\(held.worker) answered \(result.label): \(effects.isEmpty ? "fenced out" : "\(effects.count) effects")")
        let plan = held.claim.plan
        guard !effects.isEmpty else { return }
        if case .response(400, _, _) = result {
            // Refused for good: its alert is dropped, and its state is never owed again.
            if let key = held.claim.headAlertKey { droppedKeys.insert(key) }
            if let shown = plan.shown { refused.insert(shown) }
        }
        for effect in effects {
            switch effect {
            case .shown:
                let decoded = (try? JSONParser().parse(plan.body)).flatMap { try? LiveActivityPayload(jsonValue: $0) }
                accepted.append(Accepted(
                    at: now, event: decoded?.event ?? .update, shown: plan.shown,
                    alertKey: plan.carriesAlert ? held.claim.headAlertKey : nil, priority: plan.priority, isFinal: held.isFinal))
            case .budget(.throttled(let throttle)):
                barred.append((accepted.count, throttle.barredUntil))
            default:
                break
            }
        }
    }

    /// One of APNs' answers, most of them accepted.
    private mutating func randomResult() -> SendResult {
        switch roll(100) {
        case 0..<62: .response(status: 200, reason: nil, retryAfter: nil)
        case 62..<70: .response(status: 429, reason: .tooManyRequests, retryAfter: Double(roll(300)))
        case 70..<78: .response(status: 503, reason: .serviceUnavailable, retryAfter: nil)
        case 78..<86: .response(status: 500, reason: .internalServerError, retryAfter: nil)
        case 86..<93: .transportFailure(.connectionReset)
        case 93..<96: .response(status: 400, reason: .badRequestPayload, retryAfter: nil)
        case 96..<98: .response(status: 403, reason: .invalidProviderToken, retryAfter: nil)
        default: .response(status: 410, reason: .channelNotRegistered, retryAfter: nil)
        }
    }

    /// No more events: the app runs, APNs accepts everything, time passes until the row is gone.
    mutating func drain() {
        inFlight.removeAll()
        outbox.paused = false
        for _ in 0..<1_000 {
            guard let row = outbox.pending, !outbox.retired else { return }
            now = max(now, row.entry.claimableAt, row.lease.map { $0.expiresAt.addingTimeInterval(0.001) } ?? now)
            if let held = claim(worker: 9) {
                answer(held, with: .response(status: 200, reason: nil, retryAfter: nil))
            }
        }
        notes.append("the drain did not empty the row")
    }

    // MARK: - Invariants

    /// What the accepted sends broke of the channel's promise (empty: nothing).
    func check() -> [String] {
        var broken = notes.filter { $0.hasPrefix("the drain") || $0.hasPrefix("could not") }
        // The newest state is sent once APNs answers.
        if !outbox.retired {
            if outbox.pending != nil { broken.append("the row is still pending after the drain") }
            if let newest, !refused.contains(newest), accepted.last?.shown != newest {
                broken.append("the newest state was not the last one accepted")
            }
        }
        // Every alert is announced exactly once, in order, and never after an `end`.
        let announced = accepted.compactMap(\.alertKey)
        let owed = alertKeys.filter { !droppedKeys.contains($0) }
        if outbox.retired {
            if announced != Array(owed.prefix(announced.count)) { broken.append("alerts announced \(announced), owed \(owed)") }
        } else if announced != owed {
            broken.append("alerts announced \(announced), owed \(owed)")
        }
        if let end = accepted.firstIndex(where: { $0.event == .end }) {
            if end != accepted.count - 1 { broken.append("a send was accepted after the end") }
            // `end` goes only with the final state.
            if accepted[end].shown != newest || !ended { broken.append("the end went with a state that was not the final one") }
        }
        // No accepted send is followed by an accepted send showing the same thing, alert aside.
        for (previous, next) in zip(accepted, accepted.dropFirst()) where next.alertKey == nil && next.shown == previous.shown {
            broken.append("a send at \(next.at.timeIntervalSince(Model.start))s repeated the previous one")
        }
        // Priority 10 only for an announcement (the game's routine updates ask for 5), never over
        // the budget but the final whistle's reserve, and never while barred.
        let profile = Model.rules.budget.profile.immediatePerHour
        for (index, send) in accepted.enumerated() where send.priority == .immediate {
            if send.alertKey == nil { broken.append("priority 10 at \(send.at.timeIntervalSince(Model.start))s without an alert") }
            let before = accepted[..<index].filter {
                $0.priority == .immediate && $0.at > send.at.addingTimeInterval(-Model.rules.budget.windowSeconds)
            }.count
            let limit = send.isFinal ? profile : profile - Model.rules.budget.finalReserve
            if before >= limit { broken.append("priority 10 number \(before + 1) in an hour (limit \(limit))") }
            // APNs' latest 429 is its word on when priority 10 may go again.
            if let latest = barred.last(where: { $0.acceptedBefore <= index }), send.at < latest.until {
                broken.append("priority 10 at \(send.at.timeIntervalSince(Model.start))s while APNs barred it")
            }
        }
        return broken
    }
}
