/// The bookkeeping of one connection's prepared statements: which statement text (with its
/// parameter types) is prepared under which server-side name, least recently used first out.
///
/// Pure state, no I/O: the connection asks it what to do (prepare under a new name, reuse a
/// name, deallocate evicted names) and carries that out with libpq. Names are never reused on
/// a connection, so a name the server still holds can never be mistaken for another statement.
struct StatementCache {
    /// What identifies a prepared statement: the same text with other parameter types is a
    /// different statement on the server (the types are fixed when it is prepared).
    struct Key: Hashable {
        var text: String
        var parameterTypes: [UInt32]
    }

    private struct Entry {
        var name: String
        var lastUse: UInt64
    }

    /// The most statements kept prepared at once; 0 disables the cache.
    let capacity: Int
    private var entries: [Key: Entry] = [:]
    private var names: [String: Key] = [:]
    private var clock: UInt64 = 0
    private var nextNumber = 1
    /// Names dropped from the cache that may still be prepared on the server, to `DEALLOCATE`
    /// once the session is outside a transaction block.
    private(set) var pendingDeallocation: [String] = []

    /// The prefix of every generated name, so the cache's statements can be told apart from
    /// any a caller prepared with SQL `PREPARE`.
    static let namePrefix = "scorecast_s"

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Whether statements are cached at all.
    var isEnabled: Bool { capacity > 0 }

    /// How many statements are cached.
    var count: Int { entries.count }

    /// The name `key` is prepared under, marking it as just used; `nil` on a miss.
    mutating func lookup(_ key: Key) -> String? {
        guard var entry = entries[key] else { return nil }
        clock += 1
        entry.lastUse = clock
        entries[key] = entry
        return entry.name
    }

    /// Makes room for one more statement: at capacity, the least recently used one leaves the
    /// cache and its name joins `pendingDeallocation`. Call before preparing a missed statement.
    mutating func makeRoom() {
        guard isEnabled, entries.count >= capacity else { return }
        // A linear scan: it runs only on eviction, and a few hundred comparisons cost far
        // less than the round trip that follows.
        guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
        entries.removeValue(forKey: oldest.key)
        names.removeValue(forKey: oldest.value.name)
        pendingDeallocation.append(oldest.value.name)
    }

    /// A fresh name for the next statement to prepare (`scorecast_s1`, `scorecast_s2`, …).
    mutating func makeName() -> String {
        defer { nextNumber += 1 }
        return Self.namePrefix + String(nextNumber)
    }

    /// Records that `key` was prepared successfully under `name`.
    mutating func insert(_ key: Key, name: String) {
        if let previous = entries[key] {
            names.removeValue(forKey: previous.name)
            pendingDeallocation.append(previous.name)
        }
        clock += 1
        entries[key] = Entry(name: name, lastUse: clock)
        names[name] = key
    }

    /// Forgets `key`. With `stillPrepared` (its plan went stale but the server still holds it)
    /// its name is queued for deallocation; without (the server no longer has it) it is not.
    mutating func remove(_ key: Key, stillPrepared: Bool) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        names.removeValue(forKey: entry.name)
        if stillPrepared { pendingDeallocation.append(entry.name) }
    }

    /// Forgets every statement without deallocating anything: the server dropped them all
    /// (`DISCARD ALL`, `DEALLOCATE ALL`) or the session is gone.
    mutating func removeAll() {
        entries.removeAll()
        names.removeAll()
        pendingDeallocation.removeAll()
    }

    /// Keeps only the statements whose names the server still lists (after a statement that
    /// may have deallocated some of them).
    mutating func retain(serverNames: Set<String>) {
        for (name, key) in names where !serverNames.contains(name) {
            entries.removeValue(forKey: key)
            names.removeValue(forKey: name)
        }
        pendingDeallocation.removeAll { !serverNames.contains($0) }
    }

    /// Takes the names waiting for deallocation (the caller deallocates them now).
    mutating func takePendingDeallocation() -> [String] {
        defer { pendingDeallocation.removeAll() }
        return pendingDeallocation
    }
}
