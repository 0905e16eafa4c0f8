import Testing

@testable import CurlHTTP

/// The reusable header list: rewritten in place for every request, so what libcurl reads must
/// be exactly the latest lines, however many there are and however long.
@Suite("HeaderList")
struct HeaderListTests {
    @Test("a rewrite replaces every line; the list libcurl holds stays the same while it fits")
    func rewriteInPlace() {
        let list = HeaderList(lines: ["Accept:", "authorization: bearer A"])
        let first = list.link()
        #expect(list.lines == ["Accept:", "authorization: bearer A"])

        list.removeAll()
        list.append("Accept:")
        list.append(name: "authorization", value: "bearer B")
        list.append(name: "apns-channel-id", value: "dHdvIGNoYW5uZWxz")
        #expect(list.link() == first)
        #expect(list.lines == ["Accept:", "authorization: bearer B", "apns-channel-id: dHdvIGNoYW5uZWxz"])

        list.removeAll()
        #expect(list.link() == nil)
        #expect(list.lines.isEmpty)
    }

    @Test("lines past the first storage (more nodes, longer text) all come out whole")
    func growth() {
        let list = HeaderList()
        let long = String(repeating: "v", count: 3000)
        var expected: [String] = []
        for index in 0..<20 {
            let value = index == 7 ? long : "value-\(index)"
            list.append(name: "x-header-\(index)", value: value)
            expected.append("x-header-\(index): \(value)")
        }
        #expect(list.count == 20)
        #expect(list.lines == expected)

        list.removeAll()
        list.append("Expect:")
        #expect(list.lines == ["Expect:"])
    }
}
