import Dispatch
import Foundation
import Synchronization

/// Turns POSIX signals into an awaitable event. The default handlers of the watched signals are
/// replaced by `SIG_IGN` so that Dispatch sees them instead of the process dying.
public final class SignalWatcher: Sendable {
    // DispatchSourceSignal is thread-safe but not marked Sendable; the list is only touched
    // under the lock, and each source only cancelled.
    private struct Sources: @unchecked Sendable { var list: [DispatchSourceSignal] }

    /// What the signal handlers share with `next()`.
    private final class Received: Sendable {
        let event = ShutdownSignal()
        let number = Mutex<Int32?>(nil)
    }

    private let sources: Mutex<Sources>
    private let received = Received()

    /// Starts watching `signals`.
    public init(signals: [Int32]) {
        var list: [DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [received] in
                received.number.withLock { if $0 == nil { $0 = number } }
                received.event.trigger()
            }
            source.resume()
            list.append(source)
        }
        self.sources = Mutex(Sources(list: list))
    }

    /// Triggered by the first watched signal (and by `cancel()`): hand it to whatever should
    /// stop when a signal arrives, e.g. `ServiceGroup.run(until:)`.
    public var triggered: ShutdownSignal { received.event }

    /// Waits for the first watched signal and returns its name (`SIGTERM`, `SIGINT`…), or
    /// `nil` if the watcher was cancelled first.
    public func next() async -> String? {
        await received.event.wait()
        guard let number = received.number.withLock({ $0 }) else { return nil }
        return Self.name(of: number)
    }

    /// Stops watching; a pending `next()` returns `nil`.
    public func cancel() {
        sources.withLock { sources in
            for source in sources.list { source.cancel() }
            sources.list = []
        }
        received.event.trigger()
    }

    private static func name(of number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}
