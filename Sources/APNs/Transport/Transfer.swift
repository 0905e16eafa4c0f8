import Clocks
import Synchronization

/// One request on its way through the transport's loop thread: what to send, by when, and who
/// waits for the answer. Answered exactly once (``answer(_:)`` or ``fail(_:)``), by the loop
/// thread (or by the submitter when the loop has already stopped): every path that takes a
/// transfer out of the loop (answer, failure, resend limit, deadline, cancellation, shutdown)
/// does so once, as the transport tests exercise.
final class Transfer: Sendable {
    let id: UInt64
    let request: HTTPRequest
    /// After this instant the request fails with `.timeout`, wherever it is.
    let deadline: ContinuousClock.Instant
    /// Who waits for the answer.
    let reply: TransferReply
    /// Set by the caller's cancellation handler; read by the loop thread.
    let cancellation: CancellationFlag
    /// Attempts that failed without an answer so far (see `ResendPolicy`).
    let attempts = Atomic<Int>(0)

    init(id: UInt64, request: HTTPRequest, deadline: ContinuousClock.Instant, cancellation: CancellationFlag, reply: TransferReply) {
        self.id = id
        self.cancellation = cancellation
        self.request = request
        self.deadline = deadline
        self.reply = reply
    }

    /// Hands the response to whoever waits for it.
    func answer(_ response: HTTPResponse) {
        switch reply {
        case .caller(let continuation): continuation.resume(returning: response)
        case .batch(let batch, let index): batch.deliver(.success(response), at: index)
        }
    }

    /// Fails the request for whoever waits for it.
    func fail(_ error: APNsClientError) {
        switch reply {
        case .caller(let continuation): continuation.resume(throwing: error)
        case .batch(let batch, let index): batch.deliver(.failure(error), at: index)
        }
    }
}

/// Where a transfer's one answer goes.
///
/// A caller's continuation is an `UnsafeContinuation`: a checked one allocates a guard object
/// per request, and every transfer is answered exactly once (see ``Transfer``).
enum TransferReply: Sendable {
    /// A caller awaiting this request alone.
    case caller(UnsafeContinuation<HTTPResponse, any Error>)
    /// Slot `index` of a batch that one caller awaits whole.
    case batch(BatchReply, index: Int)
}

/// Raised by a caller's cancellation handler, which may run before the transfer exists; the
/// loop thread checks it when it takes a submission, so no cancellation is lost in between.
final class CancellationFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    func raise() { raised.store(true, ordering: .releasing) }
    var isRaised: Bool { raised.load(ordering: .acquiring) }
}

/// Transport settings, derived from the client's configuration.
struct TransportOptions: Sendable {
    var maxConnectionsPerHost: Int
    var maxConcurrentStreams: Int
    var connectTimeout: Duration
    var maxConnectionRetries: Int
    var idleConnectionMaxAgeSeconds: Int
    var keepAliveIdleSeconds: Int
    var keepAliveIntervalSeconds: Int
    var maxResponseBytes: Int
    /// The proxy every request goes through (`CURLOPT_PROXY`, e.g. `http://user:pass@host:3128`);
    /// `nil` lets libcurl follow the standard `HTTPS_PROXY` / `NO_PROXY` variables.
    var proxy: String? = nil
    /// Every instant the transport compares (deadlines, the idle age) is this clock's monotonic
    /// reading, so that tests move time forward instead of waiting on the wall clock.
    var clock: any ServiceClock = SystemServiceClock()

    /// The most requests in flight to one endpoint: every connection's streams.
    var inFlightCapPerEndpoint: Int { maxConnectionsPerHost * maxConcurrentStreams }
}
