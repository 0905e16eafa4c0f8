import Synchronization

/// The answers to a batch of transfers that one caller awaits together. Each transfer fills
/// its own slot; the one that fills the last resumes the caller once with all of them, in the
/// order they were submitted.
///
/// Why: handing each answer back to Swift's cooperative pool (a resume, a pool thread woken)
/// costs about as much client CPU as libcurl's own work per request
/// (docs/performance-log.md, "the APNs client profiled against the floor"); a batch pays it
/// once.
final class BatchReply: Sendable {
    typealias Answers = [Result<HTTPResponse, APNsClientError>]

    private struct Slots {
        var answers: [Result<HTTPResponse, APNsClientError>?]
        var missing: Int
    }

    /// Filled on the curl thread, or on the submitter's when the loop had already stopped.
    private let slots: Mutex<Slots>
    private let continuation: UnsafeContinuation<Answers, Never>

    /// A batch of `count` (at least one) answers for `continuation`.
    init(count: Int, continuation: UnsafeContinuation<Answers, Never>) {
        slots = Mutex(Slots(answers: Array(repeating: nil, count: count), missing: count))
        self.continuation = continuation
    }

    /// Records slot `index`'s answer; the last one resumes the caller. A slot answered twice
    /// keeps its first answer (a transfer is answered once; this is only a guard).
    func deliver(_ answer: Result<HTTPResponse, APNsClientError>, at index: Int) {
        let complete: Answers? = slots.withLock { slots in
            guard slots.answers[index] == nil else { return nil }
            slots.answers[index] = answer
            slots.missing -= 1
            return slots.missing == 0 ? slots.answers.compactMap { $0 } : nil
        }
        if let complete { continuation.resume(returning: complete) }
    }
}
