import APNs
import Clocks
import Foundation
import Registry
import ScorecastLogging
import ScorecastCore
import ServiceBase

/// One worker: claims a batch of due rows, sends them all at once (the APNs client multiplexes
/// them over its HTTP/2 connections), and writes every outcome in one fenced transaction.
/// Loops until the pool stops; sleeps on the wake signal when there is nothing to do.
struct DeliveryWorker: Sendable {
    let index: Int
    let context: WorkerContext

    /// This worker's lease owner.
    var owner: String { "\(context.ownerPrefix)/w\(index)" }

    /// Runs until the pool stops claiming; the batch in hand is finished (or released) first.
    ///
    /// The outcomes of one batch are written while the next batch is claimed and sent (at most
    /// one write in flight per worker): the database and APNs round trips overlap. A batch's
    /// channels stay in the process's in-flight set until its outcomes are written.
    func run() async {
        await withTaskGroup(of: Void.self) { writes in
            var writing = false
            var failures = 0
            // At start, rows may be waiting: news for the first claim of this process (the
            // other workers' first claims are covered by it unless it comes back full).
            var reason = ClaimReason.news
            while !context.stopping.isSignalled && !Task.isCancelled {
                let seen = context.wakeup.generation
                let seenAlerting = context.alerting.generation
                // While the APNs host fails, nothing is sent but one probe per interval.
                var limit = context.settings.claimBatchSize
                var probing = false
                switch context.breaker.permission() {
                case .send:
                    break
                case .probe:
                    limit = 1
                    probing = true
                case .wait(let until):
                    let wait = max(0.01, until.timeIntervalSinceNow)
                    await context.wakeup.wait(after: seen, timeout: .milliseconds(Int64(min(wait, 60) * 1000)))
                    continue
                }
                // Goals ingest leased to this process go first, without a claim's scan.
                if let handOff = context.handOff {
                    let handed = handOff.take(limit: limit)
                    if !handed.isEmpty {
                        await dispatch(await claimHandedOver(handed, from: handOff, probing: probing), owner: handOff.owner,
                                       writes: &writes, writing: &writing)
                        continue
                    }
                }
                let wakeup = context.wakeup
                guard let turn = await context.turns.take(reason: probing ? .more : reason, seen: seen, generation: { wakeup.generation })
                else {
                    // A claim that began after this worker's news took all it could see.
                    context.counters.update { $0.claimsSkipped += 1 }
                    reason = await idleAndLinger(after: seen, seenAlerting: seenAlerting)
                    continue
                }
                let claimed: [ClaimedDelivery]
                do {
                    // The turn ends on every path; a failed or probing claim covers nothing.
                    var tookAll = false
                    defer { context.turns.finish(turn, tookAll: tookAll) }
                    claimed = try await context.store.claim(
                        owner: owner, limit: limit, lease: context.settings.leaseDuration,
                        excluding: context.inFlight.snapshot, ignoringBackoff: probing, at: context.clock.now(),
                        budgetPolicy: context.settings.budgetPolicy)
                    tookAll = !probing && claimed.count < limit
                    if claimed.isEmpty { context.counters.update { $0.emptyClaims += 1 } }
                    failures = 0
                    if probing {
                        if claimed.isEmpty {
                            context.breaker.probeFoundNothing()
                        } else {
                            context.counters.update { $0.probes += 1 }
                        }
                    }
                } catch {
                    if probing { context.breaker.probeFoundNothing() }
                    failures += 1
                    context.repeats.warning("claiming outbox rows failed; retrying", ["worker": String(index), "error": "\(error)"])
                    await context.wakeup.wait(after: seen, timeout: min(min(context.settings.pollInterval, .seconds(1)) * failures, .seconds(5)))
                    continue
                }
                await dispatch(claimed, owner: owner, writes: &writes, writing: &writing)
                if claimed.count < limit {
                    reason = await idleAndLinger(after: seen, seenAlerting: seenAlerting)
                } else {
                    reason = .more
                }
            }
        }
    }

    /// Sends a claimed batch (leased to `owner`) and queues the writing of its outcomes behind
    /// the batch before (at most one write in flight).
    private func dispatch(_ claimed: [ClaimedDelivery], owner: String, writes: inout TaskGroup<Void>, writing: inout Bool) async {
        guard !claimed.isEmpty else { return }
        context.counters.update { $0.claimed += claimed.count }
        let ids = claimed.map(\.channelID)
        context.inFlight.insert(ids)
        let completions = context.stopping.isSignalled
            ? claimed.map(DeliveryCompletion.release) : await sendKeepingLeases(claimed, owner: owner)
        if writing { await writes.next() }
        let bundleIDs = Dictionary(claimed.map { ($0.app.id, $0.app.bundleID) }) { first, _ in first }
        writes.addTask {
            let rowsLeft = await complete(completions, owner: owner, bundleIDs: bundleIDs)
            context.inFlight.remove(ids)
            // A row given back (a newer payload came during the send, a retry) sends
            // no NOTIFY, and idle workers may have looked while it was leased: they
            // look again now instead of at the next poll.
            if rowsLeft { context.wakeup.signal() }
        }
        writing = true
    }

    /// Claims the rows ingest handed over. While the APNs host fails (a probe) they are given
    /// back instead, to be claimed when it answers again; so is a row the claim no longer finds
    /// sendable, and everything when the claim fails (the leases are ingest's: nothing else
    /// would free them before they run out).
    private func claimHandedOver(_ handed: [Int64], from handOff: AlertHandOff, probing: Bool) async -> [ClaimedDelivery] {
        var claimed: [ClaimedDelivery] = []
        if !probing {
            do {
                claimed = try await context.store.claimHandedOver(
                    handed, owner: handOff.owner, lease: context.settings.leaseDuration, at: context.clock.now(),
                    budgetPolicy: context.settings.budgetPolicy)
                context.counters.update { $0.handedOver += claimed.count }
            } catch {
                context.repeats.warning("claiming the goals ingest handed over failed; they wait for an ordinary claim", [
                    "worker": String(index), "error": "\(error)"])
            }
        }
        let left = Set(handed).subtracting(claimed.map(\.channelID))
        if !left.isEmpty {
            do {
                try await context.store.release(channelIDs: left.sorted(), owner: handOff.owner)
            } catch {
                context.repeats.warning("giving back goals handed over failed; their leases run out", [
                    "worker": String(index), "error": "\(error)"])
            }
            context.wakeup.signal()
        }
        return claimed
    }

    /// Everything due was taken: waits for news, unless some came in meanwhile; then lets more
    /// rows fall due, so the next claim is worth its cost, unless an alerting row was announced
    /// since this claim began (a goal does not wait for a fuller batch; stopping ends the
    /// linger too). Returns why the next claim is made.
    private func idleAndLinger(after seen: UInt64, seenAlerting: UInt64) async -> ClaimReason {
        let reason = await idle(after: seen)
        let lingerEnds = context.settings.alertFastLane ? context.alerting : context.stopping
        await lingerEnds.wait(after: context.settings.alertFastLane ? seenAlerting : 0, timeout: context.settings.claimLinger)
        return reason
    }

    /// Sleeps until woken or until a row falls due (``IdleWait``): while nothing is due it only
    /// looks at the due times once per poll interval, without claiming. Returns at once if a
    /// wake came after `seen`; returns `.news` when a wake ended the wait, `.dueTime` when a row
    /// fell due (or the look failed).
    private func idle(after seen: UInt64) async -> ClaimReason {
        let poll = context.settings.pollInterval
        let floor = min(max(poll / 10, .milliseconds(2)), .milliseconds(100))
        while context.wakeup.generation == seen, !context.stopping.isSignalled, !Task.isCancelled {
            let wait: IdleWait
            do {
                wait = IdleWait.after(secondsUntilNextDue: try await context.store.secondsUntilNextDue(at: context.clock.now()), poll: poll, floor: floor)
            } catch {
                wait = IdleWait.after(secondsUntilNextDue: nil, lookFailed: true, poll: poll, floor: floor)
            }
            await context.wakeup.wait(after: seen, timeout: wait.timeout)
            if wait.claimAfter && context.wakeup.generation == seen { return .dueTime }
        }
        return .news
    }

    /// ``sendAll(_:)`` while a heartbeat extends the batch's leases every third of the lease
    /// (of the pool's clock, which also dates the leases): a send slower than the lease (a slow
    /// APNs, a long timeout) keeps its rows, and only a crashed worker's rows are taken over
    /// when the lease runs out.
    private func sendKeepingLeases(_ claimed: [ClaimedDelivery], owner: String) async -> [DeliveryCompletion] {
        let ids = claimed.map(\.channelID)
        return await withTaskGroup(of: [DeliveryCompletion]?.self) { group in
            group.addTask { await sendAll(claimed) }
            group.addTask {
                let lease = context.settings.leaseDuration
                while !Task.isCancelled {
                    await context.clock.sleep(for: lease / 3)
                    if Task.isCancelled { break }
                    do {
                        try await context.store.extendLeases(channelIDs: ids, owner: owner, lease: lease, at: context.clock.now())
                    } catch {
                        context.repeats.warning("extending the leases of a batch in flight failed", [
                            "worker": String(index), "rows": String(ids.count), "error": "\(error)"])
                    }
                }
                return nil
            }
            var completions: [DeliveryCompletion] = []
            while let next = await group.next() {
                guard let next else { continue }
                completions = next
                group.cancelAll()
            }
            return completions
        }
    }

    /// Writes a batch's outcomes, retrying while the database is unreachable; if it stays
    /// unreachable the leases run out and the rows are sent again (delivery is at least once).
    /// Writes a batch's outcomes (retrying a few times); returns whether it gave any row back to
    /// the outbox rather than deleting it (a write that failed for good returns `false`: the
    /// leases expire, and an expired lease counts as due in the idle workers' look).
    private func complete(_ completions: [DeliveryCompletion], owner: String, bundleIDs: [Int64: String]) async -> Bool {
        var attempt = 0
        while true {
            attempt += 1
            do {
                let result = try await context.store.complete(
                    completions, owner: owner, routineInterval: context.settings.routineInterval.timeInterval, at: context.clock.now())
                record(completions, result, bundleIDs: bundleIDs)
                return result.deleted.count + result.fencedOut.count < completions.count
            } catch {
                let deadline = attempt >= 5 || Task.isCancelled
                context.logger.log(deadline ? .error : .warning, "writing send outcomes failed", [
                    "worker": String(index), "rows": String(completions.count), "attempt": String(attempt),
                    "error": "\(error)", "then": deadline ? "leases will expire and the rows be sent again" : "retrying"])
                if deadline { return false }
                try? await Task.sleep(for: .milliseconds(100 * attempt))
            }
        }
    }

    /// Logs the failed attempts' causes (429, 5xx, connection failures…) through the pool's
    /// repeat log: each cause's first occurrence at once, then one count per interval naming
    /// every app it hit.
    private func logTrouble(_ completions: [DeliveryCompletion], bundleIDs: [Int64: String]) {
        for completion in completions {
            guard let delivery = completion.delivery, delivery.outcome != .sent else { continue }
            let cause = FailureLabels.reasonLabel(delivery.reason ?? "unknown")
            context.repeats.warning(
                cause: "apns-trouble:" + cause, "APNs trouble: \(cause)",
                ["cause": cause, "app": bundleIDs[completion.appID] ?? "unknown"], gathering: ["app"])
        }
    }

    private func record(_ completions: [DeliveryCompletion], _ result: OutboxStore.CompletionResult, bundleIDs: [Int64: String]) {
        let fenced = Set(result.fencedOut)
        let superseded = Set(result.superseded)
        context.metrics?.recordDeliveries(completions.filter { !fenced.contains($0.channelID) }, bundleIDs: bundleIDs)
        context.counters.update { totals in
            totals.batches += 1
            totals.fencedOut += fenced.count
            totals.superseded += superseded.count
            for completion in completions where !fenced.contains(completion.channelID) {
                switch completion.delivery?.outcome {
                case .sent?:
                    totals.sent += 1
                    if completion.sentAlertKey != nil { totals.alertsSent += 1 }
                    if completion.delivery?.downgraded == true { totals.downgraded += 1 }
                case .retry?: totals.retried += 1
                case .failed?: totals.failed += 1
                case .gone?: totals.gone += 1
                case .paused?: totals.paused += 1
                case nil where completion.skippedRepeat: totals.repeatsSkipped += 1
                case nil: totals.released += 1
                }
                if completion.alertDropped {
                    totals.alertsDropped += 1
                }
            }
        }
        logTrouble(completions.filter { !fenced.contains($0.channelID) }, bundleIDs: bundleIDs)
        for completion in completions where !fenced.contains(completion.channelID) {
            if let alert = completion.alert {
                context.logger.error("delivery failed: \(alert)", [
                    "channel": String(completion.channelID), "app": String(completion.appID),
                    "status": completion.delivery?.statusCode.map(String.init) ?? "none",
                    "reason": completion.delivery?.reason ?? "none"])
            } else if completion.alertDropped {
                context.logger.warning("an alert was dropped: it does not fit beside the channel's newest state", [
                    "channel": String(completion.channelID), "alert": completion.sentAlertKey ?? "none"])
            } else if completion.delivery?.outcome == .failed {
                context.logger.warning("delivery failed", [
                    "channel": String(completion.channelID), "status": completion.delivery?.statusCode.map(String.init) ?? "none",
                    "reason": completion.delivery?.reason ?? "none"])
            }
        }
        if !fenced.isEmpty {
            context.logger.notice("lost the lease on rows during their send; another worker owns them now", [
                "worker": String(index), "channels": fenced.sorted().map(String.init).joined(separator: ",")])
        }
        for app in result.newlyPausedApps {
            let reason = completions.lazy.compactMap { completion -> String? in
                guard completion.appID == app.id, case .pauseApp(let reason) = completion.action else { return nil }
                return reason
            }.first ?? "credentials refused"
            context.logger.critical(
                "APNs refused the credentials of app \(app.bundleID): its sends are PAUSED until an admin fixes the key and resumes the app",
                ["app": String(app.id), "bundle_id": app.bundleID, "reason": reason])
        }
    }
}
