@testable import Postgres
import Testing

/// The cache's bookkeeping alone, without a server.
@Suite struct StatementCacheTests {
    private func key(_ text: String, _ types: [UInt32] = []) -> StatementCache.Key {
        StatementCache.Key(text: text, parameterTypes: types)
    }

    /// What the connection does on a miss: make room, take a name, record it.
    private func prepare(_ key: StatementCache.Key, in cache: inout StatementCache) -> String {
        cache.makeRoom()
        let name = cache.makeName()
        cache.insert(key, name: name)
        return name
    }

    @Test func aMissThenHitsUnderOneName() {
        var cache = StatementCache(capacity: 4)
        #expect(cache.lookup(key("SELECT 1")) == nil)
        let name = prepare(key("SELECT 1"), in: &cache)
        #expect(name == "scorecast_s1")
        #expect(cache.lookup(key("SELECT 1")) == name)
        #expect(cache.lookup(key("SELECT 1")) == name)
        #expect(cache.count == 1)
        #expect(cache.pendingDeallocation.isEmpty)
    }

    @Test func theSameTextWithOtherParameterTypesIsAnotherStatement() {
        var cache = StatementCache(capacity: 4)
        let asInt4 = prepare(key("SELECT $1", [23]), in: &cache)
        let asInt8 = prepare(key("SELECT $1", [20]), in: &cache)
        #expect(asInt4 != asInt8)
        #expect(cache.lookup(key("SELECT $1", [23])) == asInt4)
        #expect(cache.lookup(key("SELECT $1", [20])) == asInt8)
    }

    @Test func atCapacityTheLeastRecentlyUsedIsEvictedForDeallocation() {
        var cache = StatementCache(capacity: 2)
        let a = prepare(key("a"), in: &cache)
        let b = prepare(key("b"), in: &cache)
        #expect(cache.lookup(key("a")) == a) // b is now the least recently used
        let c = prepare(key("c"), in: &cache)
        #expect(cache.count == 2)
        #expect(cache.pendingDeallocation == [b])
        #expect(cache.lookup(key("b")) == nil)
        #expect(cache.lookup(key("a")) == a)
        #expect(cache.lookup(key("c")) == c)
        #expect(cache.takePendingDeallocation() == [b])
        #expect(cache.pendingDeallocation.isEmpty)
    }

    @Test func namesAreNeverReused() {
        var cache = StatementCache(capacity: 1)
        var seen = Set<String>()
        for round in 0..<50 {
            let name = prepare(key("q\(round % 3)"), in: &cache)
            #expect(seen.insert(name).inserted, "name \(name) given twice")
        }
        #expect(cache.count == 1)
        #expect(cache.pendingDeallocation.count == 49)
    }

    @Test func aZeroCapacityCacheIsDisabled() {
        var cache = StatementCache(capacity: 0)
        #expect(!cache.isEnabled)
        cache.makeRoom()
        #expect(cache.pendingDeallocation.isEmpty)
        #expect(!StatementCache(capacity: -3).isEnabled)
    }

    @Test func aStaleEntryIsDeallocatedOnlyIfTheServerStillHasIt() {
        var cache = StatementCache(capacity: 4)
        let changed = prepare(key("SELECT * FROM t"), in: &cache)
        _ = prepare(key("SELECT 2"), in: &cache)
        cache.remove(key("SELECT * FROM t"), stillPrepared: true)
        #expect(cache.pendingDeallocation == [changed])
        cache.remove(key("SELECT 2"), stillPrepared: false)
        #expect(cache.pendingDeallocation == [changed])
        #expect(cache.count == 0)
    }

    @Test func reconcilingKeepsOnlyWhatTheServerLists() {
        var cache = StatementCache(capacity: 4)
        let a = prepare(key("a"), in: &cache)
        let b = prepare(key("b"), in: &cache)
        cache.retain(serverNames: [b])
        #expect(cache.lookup(key("a")) == nil)
        #expect(cache.lookup(key("b")) == b)
        #expect(a != b)
        cache.removeAll()
        #expect(cache.count == 0)
        #expect(cache.lookup(key("b")) == nil)
    }

    @Test func unpreparedIsContagiousWhenAppending() {
        let plain: SQL = "SELECT \(1)"
        #expect(plain.usesStatementCache)
        let opted = SQL.unprepared("SELECT \(unsafeSQL: "2")")
        #expect(!opted.usesStatementCache)
        #expect(opted.text == "SELECT 2")
        #expect(!(plain + opted).usesStatementCache)
        let wrapped: SQL = "SELECT * FROM (\(opted)) x"
        #expect(!wrapped.usesStatementCache)
    }

    @Test func theCapacityIsConfigurableAndDescribed() {
        #expect(PostgresConfiguration().statementCacheCapacity == 256)
        #expect(PostgresConfiguration(statementCacheCapacity: -1).statementCacheCapacity == 0)
        #expect(PostgresConfiguration(statementCacheCapacity: 7).description.contains("statement_cache_capacity=7"))
    }
}
