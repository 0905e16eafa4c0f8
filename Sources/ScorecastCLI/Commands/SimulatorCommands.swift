import APNsSimulator
import ScorecastLogging

/// `scorecast apns-sim`: the APNs simulator on its own, with its own flags.
enum SimulatorCommands {
    static let all: [CommandDefinition] = [
        CommandDefinition(
            ["apns-sim"], summary: "Run the APNs simulator alone (HTTP/2 over TLS; prints its ports as one JSON line)",
            rawArguments: true, details: SimulatorCommand.helpText
        ) { arguments, context in
            let level = context.logLevelIsSet ? try context.configuration().logLevel : .info
            let code = await SimulatorCommand.run(
                arguments: arguments.positionals, logger: Logger(label: "apns-sim", level: level))
            if code != 0 {
                throw CommandError(ExitCode(rawValue: code) ?? .failure, "the simulator stopped (see the log above)")
            }
        }
    ]
}
