internal import CNGHTTP2
import Foundation
import Synchronization

/// The lock-protected hand-over between callers and the transport's loop thread: new
/// transfers, cancellations, resolved addresses and the stop request, plus one wake-up of the
/// loop's `epoll_wait` (an eventfd write) per batch, not per request.
final class LoopMailbox: Sendable {
    struct Inbox {
        var submissions: [Transfer] = []
        var cancellations: [UInt64] = []
        var resolutions: [Resolution] = []
        var stopping = false
        var stopped = false
        var wakeupPending = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What the loop thread takes at the top of each turn.
    struct Batch {
        var submissions: [Transfer]
        var cancellations: [UInt64]
        var resolutions: [Resolution]
        var stopping: Bool
    }

    /// The eventfd the loop watches; written to wake it. Closed in `deinit`, when neither the
    /// loop nor any caller or resolver thread holds the mailbox any more.
    let wakeFD: Int32
    private let inbox = Mutex(Inbox())

    /// Creates the eventfd.
    init() throws(APNsClientError) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else {
            throw APNsClientError(.transport, "eventfd failed: \(TransportErrorMapping.describe(errno: errno))")
        }
        wakeFD = fd
    }

    deinit {
        close(wakeFD)
    }

    /// Hands a transfer to the loop thread; `false` once the loop is stopping.
    func submit(_ transfer: Transfer) -> Bool {
        inbox.withLock { box in
            guard !box.stopping else { return false }
            box.submissions.append(transfer)
            wakeIfNeeded(&box)
            return true
        }
    }

    /// Asks the loop thread to abandon transfer `id` if it still runs or waits.
    func cancel(_ id: UInt64) {
        inbox.withLock { box in
            guard !box.stopping else { return }
            box.cancellations.append(id)
            wakeIfNeeded(&box)
        }
    }

    /// Hands a host resolution over (from a resolver thread); dropped once stopping.
    func deliver(_ resolution: Resolution) {
        inbox.withLock { box in
            guard !box.stopping else { return }
            box.resolutions.append(resolution)
            wakeIfNeeded(&box)
        }
    }

    /// Asks the loop thread to fail everything with `.shutdown` and exit.
    func requestStop() {
        inbox.withLock { box in
            guard !box.stopping else { return }
            box.stopping = true
            signal()
        }
    }

    /// Returns once the loop thread has exited.
    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = inbox.withLock { box in
                if box.stopped { return true }
                box.stopWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Loop thread: takes everything handed over since the last turn (and clears the eventfd).
    func take() -> Batch {
        var counter: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &counter) { read(wakeFD, $0.baseAddress, 8) }
        return inbox.withLock { box in
            box.wakeupPending = false
            let batch = Batch(submissions: box.submissions, cancellations: box.cancellations,
                              resolutions: box.resolutions, stopping: box.stopping)
            box.submissions.removeAll(keepingCapacity: true)
            box.cancellations.removeAll()
            box.resolutions.removeAll()
            return batch
        }
    }

    /// Loop thread, after it has closed everything: marks the loop stopped, returns the
    /// submissions that raced with the stop, and wakes every `waitUntilStopped`.
    func markStopped() -> [Transfer] {
        let (late, waiters) = inbox.withLock { box in
            box.stopped = true
            let late = box.submissions
            box.submissions.removeAll()
            let waiters = box.stopWaiters
            box.stopWaiters.removeAll()
            return (late, waiters)
        }
        for waiter in waiters { waiter.resume() }
        return late
    }

    /// One wake-up per batch: later submissions in the same batch find the loop already woken.
    private func wakeIfNeeded(_ box: inout Inbox) {
        guard !box.wakeupPending else { return }
        box.wakeupPending = true
        signal()
    }

    private func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(wakeFD, $0.baseAddress, 8) }
    }
}
