import Foundation
import Lifecycle
import Logging
import Synchronization
import Testing

/// Records the order in which services start and stop.
private final class Journal: Sendable {
    private let entries = Mutex<[String]>([])
    func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
}

private struct RecordingService: Service {
    let name: String
    let journal: Journal
    var failAfter: Duration? = nil

    func run(until shutdown: ShutdownSignal) async throws {
        journal.add("start \(name)")
        if let failAfter {
            try await Task.sleep(for: failAfter)
            journal.add("fail \(name)")
            throw CancellationError()
        }
        await shutdown.wait()
        journal.add("stop \(name)")
    }
}

@Suite struct ServiceGroupTests {
    let logger = Logger(label: "test", level: .critical, sink: MemorySink())

    @Test func signalStopsServicesInReverseOrder() async throws {
        let journal = Journal()
        let group = ServiceGroup(
            services: ["db", "http", "workers"].map { RecordingService(name: $0, journal: journal) },
            signals: [SIGUSR1], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            while journal.all.count < 3 { try await Task.sleep(for: .milliseconds(5)) }
            kill(getpid(), SIGUSR1)
            try await tasks.waitForAll()
        }
        let stops = journal.all.filter { $0.hasPrefix("stop") }
        #expect(stops == ["stop workers", "stop http", "stop db"])
    }

    @Test func aFailingServiceStopsTheOthersAndIsRethrown() async throws {
        let journal = Journal()
        let group = ServiceGroup(
            services: [
                RecordingService(name: "db", journal: journal),
                RecordingService(name: "broken", journal: journal, failAfter: .milliseconds(20)),
            ],
            signals: [SIGUSR2], logger: logger)
        await #expect(throws: CancellationError.self) { try await group.run() }
        #expect(journal.all.contains("stop db"))
    }

    @Test func shutdownSignalWakesEveryWaiterOnce() async {
        let signal = ShutdownSignal()
        async let first: Void = signal.wait()
        async let second: Void = signal.wait()
        signal.trigger()
        signal.trigger()
        _ = await (first, second)
        #expect(signal.isTriggered)
        await signal.wait()  // returns at once once triggered
    }
}

@Suite struct LogLineTests {
    @Test func jsonLinesEscapeAndKeepMetadata() throws {
        let line = LogLine.render(
            time: Date(timeIntervalSince1970: 0), level: .warning, label: "http",
            message: "quote \" and\nnewline", metadata: ["status": "503"], format: .json)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        #expect(object?["message"] == "quote \" and\nnewline")
        #expect(object?["status"] == "503")
        #expect(object?["level"] == "warning")
    }

    @Test func textLinesQuoteValuesWithSpaces() {
        let line = LogLine.render(
            time: Date(timeIntervalSince1970: 0), level: .info, label: "db",
            message: "ready", metadata: ["reason": "two words"], format: .text)
        #expect(line.hasSuffix("INFO db: ready reason=\"two words\""))
    }

    @Test func levelsFilter() {
        let sink = MemorySink()
        let logger = Logger(label: "x", level: .warning, sink: sink)
        logger.info("dropped")
        logger.error("kept")
        #expect(sink.lines.count == 1)
    }
}
