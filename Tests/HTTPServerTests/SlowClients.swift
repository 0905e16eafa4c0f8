import Foundation
import TestSupport

/// Slowloris from a process of its own: `count` connections from 127.0.0.1 that each send a
/// request line and then one header line every `interval` seconds, never finishing.
///
/// A separate process, because 2,000 sockets in the test process would push its descriptor
/// numbers past 1,024, where `select`-based code elsewhere in the process (Foundation's
/// `Process`, for one) misbehaves.
final class SlowClients: Sendable {
    private static let script = """
        import os, resource, select, socket, sys
        port, count, interval = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = count + 64 if hard == resource.RLIM_INFINITY else min(hard, count + 64)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
        sockets = []
        for _ in range(count):
            s = socket.create_connection(("127.0.0.1", port))
            s.setblocking(False)
            try:
                s.send(b"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n")
            except OSError:
                pass
            sockets.append(s)
        print("open", len(sockets), flush=True)
        closed = set()
        while True:
            ready, _, _ = select.select([0], [], [], interval)
            stopping = bool(ready) and not os.read(0, 64)
            for index, s in enumerate(sockets):
                if index in closed:
                    continue
                try:
                    s.send(b"X-Slow: 1\\r\\n")
                    if s.recv(1024) == b"":
                        closed.add(index)
                except BlockingIOError:
                    pass
                except OSError:
                    closed.add(index)
            if stopping:
                break
        print("closed", len(closed), flush=True)
        """

    private let clients: ServerProcess

    /// Starts the clients against 127.0.0.1:`port`.
    init(port: Int, count: Int, interval: Double) throws {
        clients = try ServerProcess("slow clients", "python3", ["-c", Self.script, String(port), String(count), String(interval)])
    }

    /// Waits (up to `timeout`) until every connection is open; returns how many are.
    func waitUntilOpen(timeout: Duration = .seconds(120)) async -> Int? {
        await number(after: "open", timeout: timeout)
    }

    /// Tells the clients to stop; returns how many connections the server had closed.
    func stop(timeout: Duration = .seconds(60)) async -> Int? {
        clients.closeInput()
        let closed = await number(after: "closed", timeout: timeout)
        clients.stop()
        return closed
    }

    private func number(after word: String, timeout: Duration) async -> Int? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let text = clients.output
            for line in text.split(separator: "\n") where line.hasPrefix(word + " ") {
                return Int(line.dropFirst(word.count + 1))
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
