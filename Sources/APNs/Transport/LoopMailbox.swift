internal import CCurl
import Synchronization

/// A libcurl multi handle pointer that other threads may use for `curl_multi_wakeup` only.
/// `@unchecked Sendable` is safe because: `curl_multi_wakeup` is documented thread-safe, every
/// call to it happens under the mailbox lock while the loop has not stopped, and the curl
/// thread frees the handle only after it has seen `stopping` under that same lock. All other
/// uses happen on the curl thread.
struct MultiPointer: @unchecked Sendable {
    let raw: OpaquePointer
}

/// The lock-protected hand-over between callers and the curl thread: new transfers,
/// cancellations and the stop request, plus a wakeup of `curl_multi_poll` when the thread
/// would otherwise not come back soon.
///
/// A submission wakes the thread only when it sleeps without a deadline soon. While it runs a
/// turn, it looks at the mailbox again before it polls; while requests flow (the turn took or
/// finished some and others are in flight), it polls for at most
/// `CurlEventLoop.batchWindowMilliseconds` and wakes at every answer anyway, then takes every
/// submission at once. A wakeup per submission (a `send` on libcurl's socket pair and a thread
/// switch each) would otherwise cut a busy client's writes into many small ones.
final class LoopMailbox: Sendable {
    struct Inbox {
        var submissions: [Transfer] = []
        var cancellations: [Range<UInt64>] = []
        var stopping = false
        var stopped = false
        var wakeupPending = false
        /// Whether a submission must wake the curl thread (it sleeps without a deadline soon).
        var wakeOnSubmit = true
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What the curl thread takes at the top of each turn.
    struct Batch {
        var submissions: [Transfer]
        var cancellations: [Range<UInt64>]
        var stopping: Bool
    }

    let multi: MultiPointer
    private let inbox = Mutex(Inbox())

    init(multi: MultiPointer) {
        self.multi = multi
    }

    /// Hands a transfer to the curl thread; `false` once the loop is stopping.
    func submit(_ transfer: Transfer) -> Bool {
        inbox.withLock { box in
            guard !box.stopping else { return false }
            box.submissions.append(transfer)
            if box.wakeOnSubmit { wakeIfNeeded(&box) }
            return true
        }
    }

    /// Hands a batch of transfers to the curl thread in one message; `false` (none taken) once
    /// the loop is stopping.
    func submit(contentsOf transfers: [Transfer]) -> Bool {
        inbox.withLock { box in
            guard !box.stopping else { return false }
            box.submissions.append(contentsOf: transfers)
            if box.wakeOnSubmit { wakeIfNeeded(&box) }
            return true
        }
    }

    /// Asks the curl thread to abandon the transfers with these ids that still run or wait.
    func cancel(_ ids: Range<UInt64>) {
        inbox.withLock { box in
            guard !box.stopping else { return }
            box.cancellations.append(ids)
            wakeIfNeeded(&box)
        }
    }

    /// Asks the curl thread to fail everything with `.shutdown` and exit.
    func requestStop() {
        inbox.withLock { box in
            guard !box.stopping else { return }
            box.stopping = true
            curl_multi_wakeup(multi.raw)
        }
    }

    /// Returns once the curl thread has exited.
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

    /// Curl thread: takes everything handed over since the last turn.
    func take() -> Batch {
        inbox.withLock { box in
            box.wakeupPending = false
            box.wakeOnSubmit = false
            let batch = Batch(submissions: box.submissions, cancellations: box.cancellations, stopping: box.stopping)
            box.submissions.removeAll(keepingCapacity: true)
            box.cancellations.removeAll()
            return batch
        }
    }

    /// Curl thread, right before it polls: whether anything arrived since `take()` (then it
    /// must not sleep). `busy`: transfers are in flight, so the thread will be back within the
    /// batch window and submissions until then need not wake it.
    func prepareToPoll(busy: Bool) -> Bool {
        inbox.withLock { box in
            let pending = !box.submissions.isEmpty || !box.cancellations.isEmpty || box.stopping
            box.wakeOnSubmit = !busy && !pending
            return pending
        }
    }

    /// Curl thread, after it has freed the multi handle: marks the loop stopped, returns the
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

    /// One wakeup per batch: later submissions in the same batch find the poll already woken.
    private func wakeIfNeeded(_ box: inout Inbox) {
        guard !box.wakeupPending else { return }
        box.wakeupPending = true
        curl_multi_wakeup(multi.raw)
    }
}
