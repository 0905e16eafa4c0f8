@testable import APNsSimulator
import Testing

/// Header lists built from decoded fields: repeated fields and lists are shared, credentials
/// never reach the list.
@Suite struct H2HeaderCacheTests {
    func receive(_ fields: [(String, String)], into cache: inout H2HeaderCache) -> H2Request {
        let stream = H2Stream()
        for (name, value) in fields {
            Array(name.utf8).withUnsafeBufferPointer { nameBytes in
                Array(value.utf8).withUnsafeBufferPointer { valueBytes in
                    cache.add(name: nameBytes, value: valueBytes, to: stream)
                }
            }
        }
        cache.finish(stream)
        return stream.request
    }

    let fields = [(":method", "POST"), (":path", "/4/broadcasts/apps/com.example.app"), ("authorization", "bearer aaa.bbb.ccc"),
                  ("apns-push-type", "liveactivity"), ("apns-channel-id", "dHN0LXNyY2gtY2hubA==")]

    @Test func fieldsAndCredential() {
        var cache = H2HeaderCache()
        let request = receive(fields, into: &cache)
        #expect(request.method == "POST")
        #expect(request.path == "/4/broadcasts/apps/com.example.app")
        #expect(request.authorization == "bearer aaa.bbb.ccc")
        #expect(request.headers.map(\.name) == ["authorization", "apns-push-type", "apns-channel-id"])
        #expect(request.header("authorization") == "bearer <redacted>")
        #expect(!request.headers.contains { $0.value.contains("aaa") })
    }

    @Test func repeatedRequestsShareTheirList() {
        var cache = H2HeaderCache()
        let first = receive(fields, into: &cache)
        let second = receive(fields, into: &cache)
        #expect(second.headers.map(\.value) == first.headers.map(\.value))
        first.headers.withUnsafeBufferPointer { one in
            second.headers.withUnsafeBufferPointer { two in
                #expect(one.baseAddress == two.baseAddress, "the same list object, not a copy")
            }
        }
    }

    @Test func changedFieldsAreSeen() {
        var cache = H2HeaderCache()
        _ = receive(fields, into: &cache)
        var changed = fields
        changed[4] = ("apns-channel-id", "b3RoZXItY2hhbm5lbA==")
        changed[2] = ("authorization", "bearer xxx.yyy.zzz")
        let second = receive(changed, into: &cache)
        #expect(second.authorization == "bearer xxx.yyy.zzz")
        #expect(second.header("apns-channel-id") == "b3RoZXItY2hhbm5lbA==")
        #expect(second.header("authorization") == "bearer <redacted>")
        let shorter = receive(Array(changed.prefix(4)), into: &cache)
        #expect(shorter.headers.map(\.name) == ["authorization", "apns-push-type"])
        let longer = receive(changed + [("apns-priority", "10")], into: &cache)
        #expect(longer.header("apns-priority") == "10")
        #expect(longer.headers.count == 4)
        let noCredential = receive([(":method", "GET"), (":path", "/x")], into: &cache)
        #expect(noCredential.authorization == nil)
        #expect(noCredential.headers.isEmpty)
        #expect(noCredential.method == "GET")
    }

    @Test func otherSchemesAreRedactedToo() {
        #expect(H2HeaderCache.redact("basic dXNlcjpwYXNz") == "basic <redacted>")
        #expect(H2HeaderCache.redact("opaque-token-without-scheme") == "<redacted>")
    }
}
