/// A first-in first-out queue of transfers waiting for a free stream, with cheap pushes at
/// both ends (retries go to the front). Confined to the loop thread.
struct TransferQueue {
    private var storage: [Transfer?] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    var first: Transfer? { isEmpty ? nil : storage[head] }

    mutating func append(_ transfer: Transfer) { storage.append(transfer) }

    mutating func prepend(_ transfer: Transfer) {
        if head > 0 {
            head -= 1
            storage[head] = transfer
        } else {
            storage.insert(transfer, at: 0)
        }
    }

    mutating func popFirst() -> Transfer? {
        guard !isEmpty else { return nil }
        let transfer = storage[head]
        storage[head] = nil
        head += 1
        if head > 1024 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return transfer
    }

    /// Removes and returns every transfer matching `predicate`, keeping the order of the rest.
    mutating func removeAll(where predicate: (Transfer) -> Bool) -> [Transfer] {
        var removed: [Transfer] = []
        var kept: [Transfer?] = []
        kept.reserveCapacity(count)
        for case let transfer? in storage[head...] {
            if predicate(transfer) { removed.append(transfer) } else { kept.append(transfer) }
        }
        if !removed.isEmpty {
            storage = kept
            head = 0
        }
        return removed
    }
}
