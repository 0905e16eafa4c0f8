package import CCurl

/// One libcurl header list (`curl_slist`) whose nodes and text this object owns, rewritten in
/// place for every request. libcurl keeps only the pointer given to `CURLOPT_HTTPHEADER` and
/// reads the lines when a transfer starts, so between transfers they can be replaced without
/// the two `malloc`s per line that `curl_slist_append` makes (the APNs transport rewrites its
/// list for every request: channel ids and request ids change).
///
/// Write it only while no transfer of the handle that uses it runs: `removeAll()`, then
/// `append` each line, then hand ``link()``'s pointer to `CURLOPT_HTTPHEADER` (it changes only
/// when the node storage grows). Not `Sendable`: confined to the thread of its easy handle.
package final class HeaderList {
    private var nodes: UnsafeMutablePointer<curl_slist>
    private var nodeCapacity: Int
    private var text: UnsafeMutablePointer<UInt8>
    private var textCapacity: Int
    private var textCount = 0
    /// Where each line starts in `text` (the text may move while lines are appended).
    private var lineStarts: [Int] = []

    /// An empty list.
    package init() {
        nodeCapacity = 8
        nodes = .allocate(capacity: nodeCapacity)
        textCapacity = 1024
        text = .allocate(capacity: textCapacity)
    }

    /// A list of `lines` (each `name: value`, or `name:` to suppress a header libcurl adds).
    package convenience init(lines: [String]) {
        self.init()
        for line in lines { append(line) }
    }

    deinit {
        nodes.deallocate()
        text.deallocate()
    }

    /// The number of lines.
    package var count: Int { lineStarts.count }

    /// The lines as text (for tests and diagnostics).
    package var lines: [String] {
        _ = link()
        return (0..<count).map { String(cString: nodes[$0].data) }
    }

    /// Forgets every line, keeping the storage.
    package func removeAll() {
        textCount = 0
        lineStarts.removeAll(keepingCapacity: true)
    }

    /// Appends one whole line.
    package func append(_ line: String) {
        lineStarts.append(textCount)
        write(line)
        write(byte: 0)
    }

    /// Appends `name: value`.
    package func append(name: String, value: String) {
        lineStarts.append(textCount)
        write(name)
        write(byte: UInt8(ascii: ":"))
        write(byte: UInt8(ascii: " "))
        write(value)
        write(byte: 0)
    }

    /// Links the nodes to the current lines and returns the list for `CURLOPT_HTTPHEADER`
    /// (`nil` when empty). The pointer stays the same from one rewrite to the next unless the
    /// number of lines outgrew the node storage.
    package func link() -> UnsafeMutablePointer<curl_slist>? {
        let count = lineStarts.count
        guard count > 0 else { return nil }
        if count > nodeCapacity {
            nodes.deallocate()
            nodeCapacity = max(count, nodeCapacity * 2)
            nodes = .allocate(capacity: nodeCapacity)
        }
        let base = UnsafeMutableRawPointer(text).assumingMemoryBound(to: CChar.self)
        for index in 0..<count {
            nodes[index].data = base + lineStarts[index]
            nodes[index].next = index + 1 < count ? nodes + (index + 1) : nil
        }
        return nodes
    }

    private func write(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            reserve(bytes.count)
            if let source = bytes.baseAddress { (text + textCount).update(from: source, count: bytes.count) }
            textCount += bytes.count
        }
    }

    private func write(byte: UInt8) {
        reserve(1)
        text[textCount] = byte
        textCount += 1
    }

    private func reserve(_ extra: Int) {
        guard textCount + extra > textCapacity else { return }
        let capacity = max(textCount + extra, textCapacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: text, count: textCount)
        text.deallocate()
        text = grown
        textCapacity = capacity
    }
}
