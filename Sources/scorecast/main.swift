import Foundation
import Scorecast

// Swift 6: top-level code runs on the main actor; the CLI is async all the way down.
let code = await ScorecastCLI.run(Array(CommandLine.arguments.dropFirst()), context: CommandContext(environment: ProcessInfo.processInfo.environment))
exit(code)
