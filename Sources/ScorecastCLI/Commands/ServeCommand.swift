import Demo
import Foundation
import Server
import ServiceBase

/// `scorecast serve`: the API, the workers and the poller, with everything they need.
enum ServeCommand {
    static let all: [CommandDefinition] = [
        CommandDefinition(
            ["serve"], summary: "Run the service: HTTP API, send workers and poller",
            options: [
                .value("roles", "LIST", "roles to run: api,worker,poller (default: SCORECAST_ROLES, else all)"),
                .value("ops-port", "PORT", "port of /healthz, /readyz and /metrics without the api role (default: SCORECAST_OPS_PORT)"),
            ],
            details: """
                With no SCORECAST_DATABASE_URL a private Postgres cluster is started in the state
                folder; with no SCORECAST_APNS_* hosts the built-in APNs simulator is started.
                Pending migrations are applied first unless SCORECAST_AUTO_MIGRATE=false.
                Every process serves /healthz, /readyz and /metrics: on the HTTP API's port with
                the api role, else on the ops port (SCORECAST_OPS_PORT, or --ops-port).
                SIGTERM or SIGINT stop it gracefully: no new claims, in-flight sends finish,
                then everything started is stopped in reverse order.
                """
        ) { arguments, context in
            var environment = context.environment
            if let roles = arguments.value("roles") { environment[Setting.roles.name] = roles }
            if let port = arguments.value("ops-port") { environment[Setting.opsPort.name] = port }
            let configuration = try CommandContext(environment: environment, terminal: context.terminal).configuration()
            try await Application(
                configuration: configuration, environment: environment, terminal: context.terminal, builtInAPNs: BuiltInSimulatorAPNs()
            ).run()
        }
    ]
}
