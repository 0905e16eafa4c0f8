import Demo
import DemoMatch
import Server
import ServiceBase
/// `scorecast demo`: the whole system on embedded defaults, with a match replayed through it.
enum DemoCommand {
    static let all: [CommandDefinition] = [
        CommandDefinition(
            ["demo"], summary: "Run everything and replay a bundled football match through it",
            options: [.value("speed", "N", "times faster than real time (default 60: a 90-minute match in about 2 minutes)")],
            details: """
                Starts what `serve` starts (a private Postgres and the built-in APNs simulator when
                nothing else is configured), creates a demo app with a generated key, a game and
                its broadcast channel, and posts the match's events to the real ingest API. Prints
                each event and the broadcasts APNs acknowledged; the dashboard URL is printed
                first. Ctrl-C stops everything cleanly.
                """
        ) { arguments, context in
            let speed = try arguments.integer("speed", in: 1...3_600) ?? Int(DemoFeed.defaultSpeedup)
            var environment = context.environment
            environment[Setting.roles.name] = "api,worker,poller"
            if !context.logLevelIsSet { environment[Setting.logLevel.name] = "warning" }
            let configuration = try CommandContext(environment: environment, terminal: context.terminal).configuration()
            try await Application(
                configuration: configuration, environment: environment, terminal: context.terminal, builtInAPNs: BuiltInSimulatorAPNs()
            ) { running in
                [DemoReplay(running: running, speedup: Double(speed))]
            }.run()
        }
    ]
}
