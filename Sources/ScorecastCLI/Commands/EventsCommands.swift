import Arguments
import Foundation
import JSON
import Registry
import ScorecastCore
import ServiceBase

/// `scorecast events send`: posts events to a running server, as a feed would.
enum EventsCommands {
    static let all: [CommandDefinition] = [send]

    static let send = CommandDefinition(
        ["events", "send"], summary: "Post events to a running server and print each one's outcome",
        options: [
            .value("file", "PATH", "a file with one event or {\"events\": [...]} (- reads standard input)"),
            .value("json", "EVENT", "the event (or batch) as JSON text"),
            .value("url", "URL", "the server (default: http://SCORECAST_HTTP_HOST:SCORECAST_HTTP_PORT)"),
            .value("key", "KEY", "the feed's API key (default: SCORECAST_API_KEY)"),
            .value("signing-secret", "SECRET", "sign the request, for keys made with --hmac (default: SCORECAST_SIGNING_SECRET)"),
            .flag("raw", "print the server's JSON answer as is"),
        ],
        details: """
            Example:
              scorecast events send --key sck_… --json '{"id": "e1", "game": "ars-che", "seq": 1,
                "occurredAt": "2025-11-29T20:00:00Z", "kind": "score", "team": "home",
                "scoreboard": {"home": 1, "away": 0, "clock": "12'"}}'
            The event shape is Schema/event.schema.json. Exit code 1 when the server refuses the
            request (its problem and every field at fault are printed).
            """
    ) { arguments, context in
        let body = try readBody(arguments)
        guard let token = try arguments.value("key") ?? context.configuration().feedAPIKey, !token.isEmpty else {
            throw CommandError.usage("no API key: pass --key or set SCORECAST_API_KEY (create one with `scorecast keys create`)")
        }
        let secret = try (arguments.value("signing-secret") ?? context.configuration().feedSigningSecret)
            .flatMap { $0.isEmpty ? nil : SigningSecret(text: $0) }
        let url: URL
        if let text = arguments.value("url") {
            guard let parsed = URL(string: text), let scheme = parsed.scheme, ["http", "https"].contains(scheme), parsed.host != nil else {
                throw CommandError.usage("--url must be an http:// or https:// URL, got \(text)")
            }
            url = parsed
        } else {
            let configuration = try context.configuration()
            guard let parsed = URL(string: "http://\(configuration.httpHost):\(configuration.httpPort)") else {
                throw CommandError.usage("SCORECAST_HTTP_HOST does not make a URL: pass --url")
            }
            url = parsed
        }
        let answer: EventsClient.Answer
        do {
            // Dated by this machine's clock: the feed's side of the signature's time check.
            answer = try await EventsClient(baseURL: url, token: token, signingSecret: secret).send(body: body, now: Date())
        } catch let error as EventsClient.TransportError {
            throw CommandError(.failure, error.description)
        }
        if arguments.flag("raw") {
            context.terminal.line(String(decoding: answer.body, as: UTF8.self))
            if answer.status != 202 { throw CommandError(.failure, "the server answered \(answer.status)") }
            return
        }
        guard answer.status == 202 else { throw CommandError(.failure, describeRefusal(answer)) }
        guard let report = try? JSONCoding.decode(IngestReport.self, from: answer.body) else {
            throw CommandError(.failure, "the server answered 202 with a body that is not an ingest report")
        }
        var table = TextTable(["event", "outcome"])
        for result in report.results { table.add([result.id, result.outcome.rawValue]) }
        context.terminal.print(table.render())
        context.terminal.line("accepted \(report.accepted), duplicates \(report.duplicates), stale \(report.stale)")
    }

    /// The request body from `--file` or `--json` (exactly one).
    static func readBody(_ arguments: ParsedArguments) throws -> [UInt8] {
        switch (arguments.value("file"), arguments.value("json")) {
        case (let path?, nil):
            if path == "-" { return [UInt8](FileHandle.standardInput.readDataToEndOfFile()) }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandError.usage("--file: cannot read \(path)")
            }
            return [UInt8](data)
        case (nil, let text?):
            return Array(text.utf8)
        default:
            throw CommandError.usage("pass exactly one of --file PATH and --json EVENT")
        }
    }

    /// The problem a server answered, as lines for standard error.
    static func describeRefusal(_ answer: EventsClient.Answer) -> String {
        guard let problem = try? JSONParser().parse(answer.body), let title = problem["title"]?.stringValue else {
            return "the server answered \(answer.status): \(String(decoding: answer.body.prefix(500), as: UTF8.self))"
        }
        var lines = ["the server refused the request: \(answer.status) \(title)"]
        if let detail = problem["detail"]?.stringValue { lines[0] += ": \(detail)" }
        for error in problem["errors"]?.arrayValue ?? [] {
            let field = error["field"]?.stringValue ?? ""
            lines.append("  \(field.isEmpty ? "body" : field): \(error["detail"]?.stringValue ?? "")")
        }
        return lines.joined(separator: "\n")
    }
}
