internal import CNGHTTP2
import Foundation
import Synchronization

/// Something registered with an `EventLoop` that wants to hear about readiness of one descriptor.
protocol EventLoopHandler: AnyObject {
    /// Called on the loop thread with the `epoll` event bits that fired.
    func handle(events: UInt32)
}

/// One `epoll` loop on its own thread: descriptors, timers and tasks posted from other threads.
///
/// Everything but `post(_:)` and `stop()` must be called on the loop thread. Blocking waits
/// happen in `epoll_wait` on that thread, never on Swift's cooperative pool.
final class EventLoop: @unchecked Sendable {
    // @unchecked Sendable: the mutable state (handlers, timers) is only touched on the loop thread;
    // other threads reach the loop only through `mailbox` (a Mutex) and the eventfd.

    private let epollFD: Int32
    private let wakeFD: Int32
    private var handlers: [Int32: EventLoopHandler] = [:]
    private var timers = TimerHeap()
    private let mailbox = Mutex<Mailbox>(Mailbox())
    private var stopping = false

    private struct Mailbox {
        var tasks: [@Sendable () -> Void] = []
        var stopRequested = false
    }

    /// Creates the epoll instance and its wake-up eventfd.
    init() throws(SimulatorError) {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .system("epoll_create1", errno) }
        let wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            close(epollFD)
            throw .system("eventfd", errno)
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        var event = epoll_event(events: Epoll.input, data: epoll_data_t(fd: wakeFD))
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event)
    }

    deinit {
        close(wakeFD)
        close(epollFD)
    }

    /// Watches `fd` for `events` (EPOLLIN, EPOLLOUT…) and calls `handler` when they fire.
    func register(fd: Int32, events: UInt32, handler: EventLoopHandler) -> Bool {
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { return false }
        handlers[fd] = handler
        return true
    }

    /// Changes the events watched on `fd`.
    func modify(fd: Int32, events: UInt32) {
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd` (the caller closes it).
    func unregister(fd: Int32) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        handlers[fd] = nil
    }

    /// Runs `action` on the loop thread after `delay` (monotonic clock).
    func schedule(after delay: Duration, _ action: @escaping () -> Void) {
        let nanos = max(0, delay.components.seconds) * 1_000_000_000 + max(0, delay.components.attoseconds / 1_000_000_000)
        timers.push(deadline: Self.monotonicNanos() &+ UInt64(nanos), action: action)
    }

    /// Runs `task` on the loop thread soon; safe from any thread.
    func post(_ task: @escaping @Sendable () -> Void) {
        mailbox.withLock { $0.tasks.append(task) }
        wake()
    }

    /// Asks the loop to return from `run()`; safe from any thread.
    func stop() {
        mailbox.withLock { $0.stopRequested = true }
        wake()
    }

    /// Runs until `stop()`; returns on the same thread. `onStop` runs on the loop thread just
    /// before returning, while handlers are still registered, so owners can close what they hold.
    func run(onStop: () -> Void) {
        // A write to a connection the client has reset raises SIGPIPE on the writing thread,
        // which would end the whole process (`scorecast serve` with its built-in simulator).
        // Blocked here, write(2) inside SSL_write returns EPIPE and the connection closes.
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, nil)
        let capacity = 256
        var events = [epoll_event](repeating: epoll_event(), count: capacity)
        while !stopping {
            let timeout = timers.millisecondsUntilNext(now: Self.monotonicNanos())
            let count = events.withUnsafeMutableBufferPointer { buffer in
                epoll_wait(epollFD, buffer.baseAddress, Int32(capacity), timeout)
            }
            if count < 0 && errno != EINTR { break }
            if count > 0 {
                for index in 0..<Int(count) {
                    let fd = events[index].data.fd
                    if fd == wakeFD {
                        drainMailbox()
                        continue
                    }
                    handlers[fd]?.handle(events: events[index].events)
                }
            }
            runDueTimers()
        }
        onStop()
    }

    private func wake() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { write(wakeFD, $0.baseAddress, 8) }
    }

    private func drainMailbox() {
        var counter: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &counter) { read(wakeFD, $0.baseAddress, 8) }
        let (tasks, stop) = mailbox.withLock { box -> ([@Sendable () -> Void], Bool) in
            defer { box.tasks.removeAll(keepingCapacity: true) }
            return (box.tasks, box.stopRequested)
        }
        for task in tasks { task() }
        if stop { stopping = true }
    }

    private func runDueTimers() {
        guard !timers.isEmpty else { return }
        let now = Self.monotonicNanos()
        while let action = timers.popDue(now: now) { action() }
    }

    /// Nanoseconds on the monotonic clock.
    static func monotonicNanos() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}

/// A binary min-heap of timers ordered by deadline, then by insertion order.
struct TimerHeap {
    private struct Entry {
        let deadline: UInt64
        let sequence: UInt64
        let action: () -> Void
        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }

    mutating func push(deadline: UInt64, action: @escaping () -> Void) {
        entries.append(Entry(deadline: deadline, sequence: nextSequence, action: action))
        nextSequence &+= 1
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest action if it is due at `now`.
    mutating func popDue(now: UInt64) -> (() -> Void)? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < entries.count && entries[left].precedes(entries[smallest]) { smallest = left }
                if right < entries.count && entries[right].precedes(entries[smallest]) { smallest = right }
                if smallest == parent { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first.action
    }

    /// The `epoll_wait` timeout: -1 with no timers, else milliseconds (rounded up) to the next.
    func millisecondsUntilNext(now: UInt64) -> Int32 {
        guard let first = entries.first else { return -1 }
        if first.deadline <= now { return 0 }
        let millis = (first.deadline - now + 999_999) / 1_000_000
        return Int32(min(millis, 60_000))
    }
}
