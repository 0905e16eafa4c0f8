import Clocks
import Foundation
import HTTPServer
import JSON
import Postgres
import Registry
import ScorecastCore
import ScorecastCrypto
import ScorecastLogging
import ServiceBase
import Statistics

/// `POST /v1/events`: a feed posts one event, or `{"events": [...]}`.
///
/// Checks, in order, each refusing with an `application/problem+json` body and writing nothing:
/// the key, on the headers before the body is read (`401`), body size (`413`), the key again
/// with the signature (`401`), `Content-Type` (`415`), JSON syntax (`400`), every field of
/// every event (`422`, each field named by path: `events[2].seq`; unknown fields are not
/// refused but ignored, logged and counted in `scorecast_event_fields_ignored_total`),
/// unknown games when they are refused and Live Activities over 4 KB (`422`). Then one
/// transaction (``EventIngestor``), shared with concurrent requests under load
/// (``IngestGroupCommit``), and `202` with each event's outcome:
/// ```json
/// {"results": [{"id": "e1", "outcome": "accepted"}], "accepted": 1, "duplicates": 0, "stale": 0}
/// ```
package struct EventsEndpoint: Sendable {
    /// The route's path.
    package static let path = "/v1/events"

    let ingestor: IngestGroupCommit
    let authenticator: IngestAuthenticator
    let keys: APIKeyStore
    let keyCache: APIKeyCache
    let tallies: IngestTally
    let settings: IngestSettings
    let logger: Logger
    /// Database failures, summarised: while the database is away every request fails alike.
    let repeats: RepeatLog
    let metrics: ScorecastMetrics?
    let clock: any ServiceClock

    /// Creates the endpoint on `pool` with the settings of `configuration` (goals handed to this
    /// process's workers through `handOff`, when given); received events are
    /// counted in `metrics`.
    package init(
        pool: PostgresPool, configuration: Configuration, logger: Logger, metrics: ScorecastMetrics? = nil,
        clock: any ServiceClock = SystemServiceClock(), handOff: AlertHandOff? = nil
    ) {
        self.init(
            pool: pool, settings: IngestSettings(configuration: configuration), keyring: configuration.secretsKeyring, logger: logger,
            metrics: metrics, clock: clock, handOff: handOff)
    }

    /// Creates the endpoint with explicit settings (tests).
    package init(
        pool: PostgresPool, settings: IngestSettings, keyring: SealingKeyring? = nil, logger: Logger, metrics: ScorecastMetrics? = nil,
        clock: any ServiceClock = SystemServiceClock(), handOff: AlertHandOff? = nil
    ) {
        self.metrics = metrics
        let keys = APIKeyStore(pool: pool, keyring: keyring)
        self.keys = keys
        self.tallies = IngestTally(pool: pool)
        self.ingestor = IngestGroupCommit(
            ingestor: EventIngestor(pool: pool, settings: settings, logger: logger, clock: clock, handOff: handOff),
            transactions: settings.transactions, eventLimit: settings.maximumBatchSize, logger: logger)
        let keyCache = APIKeyCache(lookup: { prefix in try await keys.find(prefix: prefix) }, clock: clock)
        self.keyCache = keyCache
        self.authenticator = IngestAuthenticator(
            lookup: { prefix in try await keyCache.find(prefix: prefix) }, tolerance: settings.signatureTolerance, clock: clock)
        self.settings = settings
        self.logger = logger.named("ingest")
        self.repeats = RepeatLog(logger: self.logger, clock: clock)
        self.clock = clock
    }

    /// Adds the route to `router`.
    package func register(on router: inout Router) {
        router.post(Self.path, options: RouteOptions(maxBodyBytes: settings.maximumBodyBytes), gate: keyGate) { request in
            try await handle(request)
        }
    }

    /// The feed's key, checked on the headers: a request without a live key is answered `401`
    /// before its body is read (the signature, which covers the body, is checked in `handle`).
    var keyGate: Gate {
        Gate { [self] request in
            do {
                _ = try await authenticator.key(of: request)
            } catch let failure as IngestAuthenticator.Failure {
                request.logger.info("ingest request refused", ["reason": "\(failure)"])
                metrics?.eventsIngested.increment(.rejected(feed: "", reason: .unauthorized), by: 1)
                await tally(duplicates: 0, rejected: 1, reason: .unauthorized, request)
                throw failure.problem
            } catch let error as PostgresError {
                throw unavailable(error, request)
            }
            return nil
        }
    }

    /// Answers one request. A refusal is counted by reason (`/metrics` and `/v1/stats`) before
    /// its problem is answered.
    func handle(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            return try await ingest(request)
        } catch let refused as IngestRefused {
            request.logger.info("ingest request refused", ["reason": refused.reason.rawValue])
            metrics?.eventsIngested.increment(.rejected(feed: refused.feed, reason: refused.reason), by: Double(refused.events))
            await tally(duplicates: 0, rejected: refused.events, reason: refused.reason, request)
            throw refused.problem
        }
    }

    /// Checks, stores and answers one request; throws `IngestRefused` for what it refuses.
    private func ingest(_ request: HTTPRequest) async throws -> HTTPResponse {
        // The server refuses larger bodies before reading them; this guards direct callers.
        guard request.body.count <= settings.maximumBodyBytes else {
            throw IngestRefused(reason: .tooLarge, feed: "", events: 1, problem: .contentTooLarge(limit: settings.maximumBodyBytes))
        }
        let feed: AuthenticatedFeed
        do {
            feed = try await authenticator.authenticate(request)
        } catch let failure as IngestAuthenticator.Failure {
            request.logger.info("ingest request unauthorized", ["failure": "\(failure)"])
            throw IngestRefused(reason: .unauthorized, feed: "", events: 1, problem: failure.problem)
        } catch let error as PostgresError {
            throw unavailable(error, request)
        }
        do {
            try request.requireJSONContentType()
        } catch let problem as Problem {
            throw IngestRefused(reason: .unsupportedMediaType, feed: feed.name, events: 1, problem: problem)
        }
        let (validated, isBatch) = try parse(request.body, feed: feed.name)
        let events = validated.events
        if validated.ignoredFieldCount > 0 {
            // Not refused: a feed may carry fields of its own. Named, so a misspelt field shows.
            metrics?.eventFieldsIgnored.increment(FeedLabels(feed: feed.name), by: Double(validated.ignoredFieldCount))
            logger.warning("unknown event fields ignored", [
                "feed": feed.name, "count": "\(validated.ignoredFieldCount)",
                "fields": validated.ignoredFields.prefix(10).joined(separator: ","),
            ])
        }
        let report: IngestReport
        do {
            report = try await ingestor.ingest(events, feed: feed.name)
        } catch let error as IngestError {
            throw IngestRefused(reason: error.refusal, feed: feed.name, events: events.count, problem: Self.problem(for: error, events: events, isBatch: isBatch))
        } catch let error as PostgresError {
            throw unavailable(error, request)
        }
        if let metrics {
            // The lock screen lists players by shortName; a feed that sends none shows full names.
            let unshortened = events.count { ($0.kind == .score || $0.kind == .card) && $0.player != nil && $0.shortName == nil }
            if unshortened > 0 { metrics.eventsWithoutShortName.increment(FeedLabels(feed: feed.name), by: Double(unshortened)) }
            let fitted = report.results.count(where: \.fittedToSize)
            if fitted > 0 { metrics.contentStatesFitted.increment(FeedLabels(feed: feed.name), by: Double(fitted)) }
            for (outcome, count) in [(IngestOutcome.accepted, report.accepted), (.duplicate, report.duplicates), (.stale, report.stale)] where count > 0 {
                metrics.eventsIngested.increment(IngestLabels(feed: feed.name, outcome: outcome), by: Double(count))
            }
        }
        if report.duplicates > 0 { await tally(duplicates: report.duplicates, rejected: 0, reason: nil, request) }
        let now = clock.now()
        if feed.needsTouch(now: now) {
            do {
                try await keys.touch(id: feed.keyID, now: now)
                keyCache.noteUsed(keyID: feed.keyID, at: now)
            } catch {
                request.logger.warning("could not record the key's last use", ["feed": feed.name])
            }
        }
        request.logger.debug("events ingested", [
            "feed": feed.name, "accepted": "\(report.accepted)", "duplicates": "\(report.duplicates)", "stale": "\(report.stale)",
        ])
        return try .json(report, status: .accepted)
    }

    /// Counts duplicates and refused events for `/v1/stats` (nothing else records them); a
    /// failure to count never fails the request.
    private func tally(duplicates: Int, rejected: Int, reason: IngestRefusal?, _ request: HTTPRequest) async {
        do {
            try await tallies.record(duplicates: duplicates, rejected: rejected, reason: reason, at: clock.now())
        } catch {
            request.logger.warning("could not count ingest outcomes for statistics", ["error": "\(error)"])
        }
    }

    private var validator: FeedEventValidator {
        FeedEventValidator(limits: FeedEventLimits(maximumBatchSize: settings.maximumBatchSize))
    }

    /// Parses and validates the body: `400` for what is not JSON, `422` naming every bad field.
    /// Also says whether it was a batch, for naming fields in later problems.
    private func parse(_ body: [UInt8], feed: String) throws(IngestRefused) -> (validated: ValidatedEvents, isBatch: Bool) {
        guard !body.isEmpty else {
            throw IngestRefused(
                reason: .malformed, feed: feed, events: 1,
                problem: .badRequest("the request body is empty; expected one event or {\"events\": [...]}"))
        }
        let json: JSONValue
        do {
            json = try JSONParser().parse(body)
        } catch {
            throw IngestRefused(reason: .malformed, feed: feed, events: 1, problem: .badRequest("the request body is not valid JSON: \(error)"))
        }
        do {
            return (try validator.validate(json, now: clock.now()), json["events"] != nil)
        } catch {
            let count = error.errors.count
            // A batch's events were refused together: count them all, or the request when unreadable.
            let events = json["events"]?.arrayValue?.count ?? 1
            throw IngestRefused(
                reason: .invalid, feed: feed, events: max(events, 1),
                problem: .unprocessable(
                    count == 1 ? "1 field is invalid: \(error.errors[0])" : "\(count) fields are invalid; nothing was stored",
                    errors: error.errors.map { Problem.FieldError(field: $0.path, detail: $0.message) }))
        }
    }

    private static func problem(for error: IngestError, events: [FeedEvent], isBatch: Bool) -> Problem {
        func path(_ index: Int, _ field: String) -> String {
            isBatch ? "events[\(index)]" + (field.isEmpty ? "" : ".\(field)") : field
        }
        switch error {
        case .unknownGames(let indices):
            return Problem.unprocessable(
                "unknown games are refused (SCORECAST_UNKNOWN_GAMES=refuse): create the game first; nothing was stored",
                errors: indices.map { Problem.FieldError(field: path($0, "game"), detail: "names game \(events[$0].game), which does not exist") })
        case .gameQuotaExceeded(let indices, let new, let remaining, let limit):
            return Problem(
                status: .tooManyRequests,
                detail: "these events name \(new) unknown game(s) and this feed key may create \(remaining) more this hour "
                    + "(SCORECAST_FEED_GAMES_PER_HOUR=\(limit)); nothing was stored",
                errors: indices.prefix(100).map { Problem.FieldError(field: path($0, "game"), detail: "names game \(events[$0].game), which does not exist") },
                headers: ["Retry-After": "60"])
        case .unrenderable(let refusal):
            return Problem.unprocessable(
                "event \(events[refusal.index].id) would render a Live Activity that cannot be sent: \(refusal.reason); nothing was stored",
                errors: [Problem.FieldError(field: path(refusal.index, ""), detail: "renders a Live Activity that cannot be sent: \(refusal.reason)")])
        }
    }

    private func unavailable(_ error: PostgresError, _ request: HTTPRequest) -> Problem {
        repeats.error("ingest failed: database error", ["error": error.description])
        return Problem(status: .serviceUnavailable, detail: "the database is unavailable; retry later (events already stored are answered as duplicates)",
                       headers: ["Retry-After": "1"])
    }
}
