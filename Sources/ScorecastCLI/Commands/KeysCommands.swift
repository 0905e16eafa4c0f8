import Foundation
import Registry
import ScorecastLogging
import Postgres
import ScorecastCore
import ServiceBase

/// `scorecast keys create|list|revoke`: the feeds' API keys.
enum KeysCommands {
    static let all: [CommandDefinition] = [create, list, revoke]

    static let create = CommandDefinition(
        ["keys", "create"], summary: "Create a feed API key (shown once)",
        options: [
            .value("name", "NAME", required: true, "the feed's name: 1–64 of A-Z a-z 0-9 . _ - (events are idempotent per name and id)"),
            .flag("hmac", "also require an HMAC-SHA256 signature on every request, with a signing secret shown once"),
            .flag("json", "print as JSON"),
        ],
        details: """
            The key is printed once and only its SHA-256 hash is stored: keep it now. Feeds send it
            as `Authorization: Bearer <key>`. With --hmac, requests must also carry
            X-Scorecast-Timestamp (UNIX seconds) and
            X-Scorecast-Signature: v1=<hex HMAC-SHA256(signing secret, timestamp + "." + body)>.
            """
    ) { arguments, context in
        let name = try arguments.required("name")
        guard APIKeyRecord.isValidName(name) else {
            throw CommandError.usage("--name: \(APIKeyStore.CreateError.invalidName)")
        }
        let configuration = try context.configuration()
        let logger = context.logger("keys", configuration)
        let created: APIKeyStore.Created
        do {
            created = try await withKeyStore(context, configuration, logger) { store in
                try await store.create(name: name, signed: arguments.flag("hmac"))
            }
        } catch let error as APIKeyStore.CreateError {
            throw CommandError.usage(error.description)
        }
        if arguments.flag("json") {
            var document = ["name": created.record.name, "prefix": created.record.prefix, "key": created.token.text]
            document["signingSecret"] = created.signingSecret?.text
            try context.terminal.json(document)
            return
        }
        var lines = [
            "Created API key \(created.record.name). It is shown only this once: store it now.",
            "  key:            \(created.token.text)",
        ]
        if let secret = created.signingSecret {
            lines.append("  signing secret: \(secret.text)")
        }
        lines.append("Send it as `Authorization: Bearer <key>`" + (created.signingSecret == nil ? "." : ", and sign every request (see --help)."))
        context.terminal.line(lines.joined(separator: "\n"))
    }

    static let list = CommandDefinition(
        ["keys", "list"], summary: "List feed API keys (never their secrets)",
        options: [.flag("json", "print as JSON")]
    ) { arguments, context in
        let configuration = try context.configuration()
        let logger = context.logger("keys", configuration)
        let keys = try await withKeyStore(context, configuration, logger) { try await $0.all() }
        if arguments.flag("json") {
            try context.terminal.json(keys.map(Listed.init))
            return
        }
        guard !keys.isEmpty else {
            context.terminal.line("no API keys: create one with `scorecast keys create --name FEED`")
            return
        }
        var table = TextTable(["name", "prefix", "signed", "status", "created", "last used"])
        for key in keys {
            table.add([
                key.name, key.prefix, key.requiresSignature ? "yes" : "no", key.revokedAt == nil ? "active" : "revoked",
                Listed.format(key.createdAt), key.lastUsedAt.map(Listed.format) ?? "never",
            ])
        }
        context.terminal.print(table.render())
    }

    static let revoke = CommandDefinition(
        ["keys", "revoke"], summary: "Revoke a feed API key: its requests fail from now on",
        positionals: ["NAME"]
    ) { arguments, context in
        guard arguments.positionals.count == 1, let name = arguments.positionals.first else {
            throw CommandError.usage("expected exactly one key name (see `scorecast keys list`)")
        }
        // A name no key can have names none: said without opening the database.
        guard APIKeyRecord.isValidName(name) else { throw CommandError.notFound("no API key named \(name)") }
        let configuration = try context.configuration()
        let logger = context.logger("keys", configuration)
        let revoked = try await withKeyStore(context, configuration, logger) { try await $0.revoke(name: name) }
        guard let revoked else { throw CommandError.notFound("no API key named \(name)") }
        context.terminal.line("revoked API key \(revoked.name) (\(revoked.prefix))")
    }

    /// Runs `body` with the key store of the configured database; a database without the
    /// schema is a clear error instead of Postgres's "relation does not exist".
    static func withKeyStore<T: Sendable>(
        _ context: CommandContext, _ configuration: Configuration, _ logger: Logger,
        _ body: (APIKeyStore) async throws -> T
    ) async throws -> T {
        // An unmigrated database is named by ErrorMapping, as for every command.
        try await context.withDatabase(configuration, logger: logger) { database in
            try await body(APIKeyStore(pool: database.pool, keyring: configuration.secretsKeyring))
        }
    }

    /// A key as `keys list --json` prints it.
    struct Listed: Encodable {
        let name: String
        let prefix: String
        let signed: Bool
        let revoked: Bool
        let createdAt: Date
        let lastUsedAt: Date?
        let revokedAt: Date?

        init(_ record: APIKeyRecord) {
            name = record.name
            prefix = record.prefix
            signed = record.requiresSignature
            revoked = record.revokedAt != nil
            createdAt = record.createdAt
            lastUsedAt = record.lastUsedAt
            revokedAt = record.revokedAt
        }

        static func format(_ date: Date) -> String {
            RFC3339.format(date)
        }
    }
}
