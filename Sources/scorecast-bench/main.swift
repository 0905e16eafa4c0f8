import Foundation

// The benchmark: `scorecast-bench run` (what Deploy/bench.sh calls) or `scorecast-bench sim`
// (the APNs simulator as a separate process, started by `run`). See BenchCommand.
let code = await BenchCommand.main(Array(CommandLine.arguments.dropFirst()))
exit(code)
