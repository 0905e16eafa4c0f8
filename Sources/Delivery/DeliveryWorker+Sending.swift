import APNs
import DeliveryEngine
import Foundation
import Registry
import ScorecastCore

/// Sending a claimed batch: one APNs batch per signing key, so that one task awaits many
/// answers (the client hands a batch to its thread and back once, not once per row).
extension DeliveryWorker {
    /// Sends every row at once, one APNs batch per signing key. Once the pool is stopping,
    /// batches still running after the grace period are cancelled; their unanswered rows are
    /// released.
    func sendAll(_ claimed: [ClaimedDelivery]) async -> [DeliveryCompletion] {
        await withTaskGroup(of: [(Int, DeliveryCompletion)]?.self) { group in
            context.metrics?.inFlightSends.increment(by: Double(claimed.count))
            for positions in Self.signingGroups(claimed) {
                group.addTask {
                    let completions = await send(positions.map { claimed[$0] })
                    context.metrics?.inFlightSends.decrement(by: Double(positions.count))
                    return Array(zip(positions, completions))
                }
            }
            let grace = context.settings.shutdownGrace
            let stopping = context.stopping
            group.addTask {
                await stopping.wait(after: 0, timeout: nil)
                try? await Task.sleep(for: grace)
                return nil
            }
            var results = [DeliveryCompletion?](repeating: nil, count: claimed.count)
            var received = 0
            while received < claimed.count, let next = await group.next() {
                guard let answered = next else {
                    if !Task.isCancelled {
                        context.logger.notice("cancelling sends still in flight after the shutdown grace period", [
                            "worker": String(index), "in_flight": String(claimed.count - received)])
                    }
                    group.cancelAll()
                    continue
                }
                for (position, completion) in answered { results[position] = completion }
                received += answered.count
            }
            group.cancelAll()
            return zip(claimed, results).map { claim, result in result ?? DeliveryCompletion.release(claim) }
        }
    }

    /// The positions of `claimed` grouped by the key that signs their sends, in order of first
    /// appearance (each group goes to one client as one batch).
    static func signingGroups(_ claimed: [ClaimedDelivery]) -> [[Int]] {
        var groups: [[Int]] = []
        var groupOfKey: [CredentialStore.KeyReference: Int] = [:]
        for (position, claim) in claimed.enumerated() {
            let key = claim.app.keyReference
            if let group = groupOfKey[key] {
                groups[group].append(position)
            } else {
                groupOfKey[key] = groups.count
                groups.append([position])
            }
        }
        return groups
    }

    /// Sends rows that share one signing key as one batch and decides what follows each; a row
    /// whose send would repeat the channel's last accepted one is finished unsent.
    private func send(_ claimed: [ClaimedDelivery]) async -> [DeliveryCompletion] {
        let plannedAt = context.clock.now()
        let allPlans = claimed.map { PlannedSend(claim: $0, now: plannedAt, settings: context.settings) }
        var completions = [DeliveryCompletion?](repeating: nil, count: claimed.count)
        var sending: [Int] = []
        for (position, plan) in allPlans.enumerated() {
            if plan.repeatsLastAccepted {
                completions[position] = CompletionPlanner.repeatSkipped(claimed[position])
            } else {
                sending.append(position)
            }
        }
        if !sending.isEmpty {
            let sent = await send(sending.map { claimed[$0] }, plans: sending.map { allPlans[$0] }, plannedAt: plannedAt)
            for (position, completion) in zip(sending, sent) { completions[position] = completion }
        }
        return zip(claimed, completions).map { claim, completion in completion ?? DeliveryCompletion.release(claim) }
    }

    /// Sends `claims` as `plans` say, as one batch, and decides what follows each.
    private func send(_ claims: [ClaimedDelivery], plans: [PlannedSend], plannedAt: Date) async -> [DeliveryCompletion] {
        let outcomes: [SendOutcome]
        do {
            let credentials = try await context.credentials.credentials(for: claims[0].app)
            let broadcasts = zip(claims, plans).map { claim, plan in
                Broadcast(bundleID: claim.app.bundleID, channelID: claim.apnsChannelID, priority: plan.priority,
                          expiration: plan.expiration, payload: plan.body, requestID: .randomRequestID())
            }
            do {
                let client = try context.apns.client(for: credentials)
                outcomes = await client.sendBroadcasts(broadcasts, credentials: credentials).map(SendOutcome.init)
            } catch {
                outcomes = claims.map { _ in .failed(error) }
            }
        } catch {
            outcomes = claims.map { _ in .credentialsUnavailable(error.message) }
        }
        var completions: [DeliveryCompletion] = []
        completions.reserveCapacity(claims.count)
        var random = SystemRandomNumberGenerator()
        for ((claim, plan), outcome) in zip(zip(claims, plans), outcomes) {
            await recordHostHealth(outcome)
            let completion = CompletionPlanner.completion(
                for: claim, plan: plan, outcome: outcome, now: context.clock.now(), plannedAt: plannedAt,
                policy: context.settings.retryPolicy, random: &random)
            if case .pauseApp = completion.action { context.credentials.invalidate(app: claim.app) }
            completions.append(completion)
        }
        return completions
    }

    /// Feeds the host's circuit breaker; when it closes, every row's backoff goes (the rows
    /// backed off because of the host) and idle workers are woken: recovery takes seconds.
    private func recordHostHealth(_ outcome: SendOutcome) async {
        switch context.breaker.record(outcome.hostOutcome) {
        case .none:
            break
        case .opened(let until):
            context.counters.update { $0.breakerOpened += 1 }
            context.logger.warning("the APNs host is failing: sends are held back; one probe goes when the breaker half-opens", [
                "worker": String(index), "probe_in_ms": String(Int(max(0, until.timeIntervalSinceNow) * 1000))])
        case .closed:
            let released = (try? await context.store.releaseBackoffs(at: context.clock.now())) ?? 0
            context.logger.notice("the APNs host answers again: sends resume", [
                "worker": String(index), "backoffs_released": String(released)])
            context.wakeup.signal()
        }
    }
}
