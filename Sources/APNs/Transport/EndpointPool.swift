/// The connections of one endpoint, as numbers only: which connection takes the next request,
/// when to open another one. Pure (no I/O, time passed in), so every rule is tested without a
/// socket; the event loop tells it what happened and does what it answers.
///
/// Rules:
/// - A connection takes streams only once it is usable: TLS done, HTTP/2 agreed, the server's
///   SETTINGS read, and one request answered on it (the warm-up: until then it carries one
///   stream, as APNs allows one stream until a request with a valid token succeeded, apns.md §6).
/// - A usable connection carries at most `min(maxStreams, the server's SETTINGS limit)` streams.
/// - Requests fill the oldest connection first; a new connection is opened only when every
///   usable one is full, none is still opening or warming up, and fewer than `maxConnections`
///   are open (connections draining after a GOAWAY do not count: they take no new streams).
/// - After a failed open, while another connection still serves, the next open waits
///   `reopenDelay` (a refusing host is not hammered); with none serving, it is tried at once
///   (each waiting request counts the failure, which bounds the attempts).
struct EndpointPool {
    /// Where one connection stands.
    enum Phase: Equatable {
        /// Resolving, connecting, TLS handshake.
        case opening
        /// HTTP/2 agreed; waiting for the server's SETTINGS and a first answer.
        case warmingUp
        /// Takes streams up to its capacity.
        case ready
        /// GOAWAY received or closing: finishes what it has, takes nothing new.
        case draining
    }

    /// One connection as the pool sees it.
    struct Slot: Equatable {
        let id: UInt64
        var phase: Phase = .opening
        /// Streams submitted and not yet closed.
        var active = 0
        /// The server's SETTINGS_MAX_CONCURRENT_STREAMS, once read.
        var peerLimit: Int?
        /// Whether a request has been answered on it.
        var answered = false
    }

    /// What to do with the next waiting request.
    enum Choice: Equatable {
        /// Submit it on this connection.
        case use(UInt64)
        /// Open a new connection (and keep the request waiting).
        case open
        /// Keep it waiting.
        case wait
    }

    let maxConnections: Int
    let maxStreams: Int
    let reopenDelay: Duration
    private(set) var slots: [Slot] = []
    private var lastOpenFailure: ContinuousClock.Instant?

    init(maxConnections: Int, maxStreams: Int, reopenDelay: Duration = .milliseconds(250)) {
        self.maxConnections = max(1, maxConnections)
        self.maxStreams = max(1, maxStreams)
        self.reopenDelay = reopenDelay
    }

    /// How many streams `slot` may carry now.
    func capacity(of slot: Slot) -> Int {
        switch slot.phase {
        case .opening, .draining:
            return 0
        case .warmingUp:
            return 1
        case .ready:
            return min(maxStreams, slot.peerLimit ?? 1)
        }
    }

    /// Streams the endpoint can take right now without opening anything.
    var freeStreams: Int {
        slots.reduce(0) { $0 + max(0, capacity(of: $1) - $1.active) }
    }

    /// Whether any connection can carry requests now or soon (not opening, not draining).
    var hasServingConnection: Bool {
        slots.contains { $0.phase == .warmingUp || $0.phase == .ready }
    }

    /// Whether nothing is open or opening (the endpoint's state can be dropped).
    var isEmpty: Bool { slots.isEmpty }

    /// The decision for the next waiting request at `now`.
    func choose(now: ContinuousClock.Instant) -> Choice {
        for slot in slots where slot.active < capacity(of: slot) {
            return .use(slot.id)
        }
        if slots.contains(where: { $0.phase == .opening || $0.phase == .warmingUp }) { return .wait }
        let open = slots.count { $0.phase != .draining }
        guard open < maxConnections else { return .wait }
        if hasServingConnection, let lastOpenFailure, now - lastOpenFailure < reopenDelay { return .wait }
        return .open
    }

    // MARK: - What happened

    /// A connection is being opened.
    mutating func opening(_ id: UInt64) {
        slots.append(Slot(id: id))
    }

    /// TLS and HTTP/2 are agreed on `id`.
    mutating func established(_ id: UInt64) {
        update(id) { if $0.phase == .opening { $0.phase = .warmingUp } }
        lastOpenFailure = nil
    }

    /// The server's SETTINGS arrived (again): its stream limit, `nil` when it set none.
    mutating func settingsReceived(_ id: UInt64, peerLimit: Int?) {
        update(id) { slot in
            slot.peerLimit = peerLimit.map { max(0, $0) } ?? Int.max
            Self.promote(&slot)
        }
    }

    /// A stream was submitted on `id`.
    mutating func streamStarted(_ id: UInt64) {
        update(id) { $0.active += 1 }
    }

    /// A stream of `id` closed; `answered` when a complete response came back on it.
    mutating func streamEnded(_ id: UInt64, answered: Bool) {
        update(id) { slot in
            slot.active = max(0, slot.active - 1)
            if answered {
                slot.answered = true
                Self.promote(&slot)
            }
        }
    }

    /// `id` received GOAWAY (or is being closed by us): no new streams.
    mutating func draining(_ id: UInt64) {
        update(id) { $0.phase = .draining }
    }

    /// `id` failed before it was established, at `now`.
    mutating func openFailed(_ id: UInt64, now: ContinuousClock.Instant) {
        slots.removeAll { $0.id == id }
        lastOpenFailure = now
    }

    /// `id` is gone.
    mutating func closed(_ id: UInt64) {
        slots.removeAll { $0.id == id }
    }

    /// The slot of `id`, if it is still in the pool.
    func slot(_ id: UInt64) -> Slot? {
        slots.first { $0.id == id }
    }

    private static func promote(_ slot: inout Slot) {
        if slot.phase == .warmingUp && slot.answered && slot.peerLimit != nil { slot.phase = .ready }
    }

    private mutating func update(_ id: UInt64, _ change: (inout Slot) -> Void) {
        guard let index = slots.firstIndex(where: { $0.id == id }) else { return }
        change(&slots[index])
    }
}
