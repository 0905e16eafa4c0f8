extension SimulatorState {
    /// Received requests, oldest first: those with a sequence above `since`, at most the last `limit`.
    func receivedRequests(since: Int = 0, limit: Int? = nil) -> [SimulatorReceivedRequest] {
        var records = log.withLock { $0.all }.filter { $0.sequence > since }
        if let limit, records.count > limit { records = Array(records.suffix(max(0, limit))) }
        return records.map(SimulatorReceivedRequest.init)
    }

    /// Every channel, oldest first.
    /// Every device token that received Live Activity pushes or was marked unregistered, by token.
    func deviceTokenList() -> [SimulatorDeviceToken] {
        core.withLock { core in
            Set(core.deviceTokens.entries.keys).union(core.unregisteredTokens.keys).sorted().map { token in
                let entry = core.deviceTokens.entries[token]
                return SimulatorDeviceToken(
                    token: token, bundleID: entry?.bundleID, accepted: entry?.accepted ?? 0, starts: entry?.starts ?? 0,
                    updates: entry?.updates ?? 0, ends: entry?.ends ?? 0, lastEvent: entry?.lastEvent,
                    lastStartInput: entry?.lastStartInput, unregisteredAt: core.unregisteredTokens[token])
            }
        }
    }

    func channelList() -> [SimulatorChannel] {
        core.withLock { $0.channels.all }.map {
            SimulatorChannel(id: $0.id, bundleID: $0.bundleID, messageStoragePolicy: $0.policy.rawValue, createdAt: $0.createdAt)
        }
    }

    /// The budget position of every channel, oldest channel first.
    func budgetUsage() -> [SimulatorBudgetUsage] {
        let now = clock.now()
        return core.withLock { core in
            core.channels.all.map { channel in
                let usage = core.budgets.usage[channel.id]
                let budget = core.settings.budget(for: channel.policy)
                let used = usage?.used(now: now) ?? 0
                return SimulatorBudgetUsage(
                    channelID: channel.id, bundleID: channel.bundleID, messageStoragePolicy: channel.policy.rawValue,
                    budgetPerHour: budget, usedInWindow: used, remaining: budget.map { max(0, $0 - used) },
                    freesAt: usage?.oldestExpiry(now: now), priorityTenSends: usage?.priorityTenSends ?? 0,
                    otherSends: usage?.otherSends ?? 0, throttled: usage?.throttled ?? 0)
            }
        }
    }

    /// Totals since start or reset.
    func statistics() -> SimulatorStatistics {
        log.withLock { SimulatorStatistics(received: $0.totalReceived, answers: $0.answers) }
    }
}
