import APNsSimulator
import Arguments
import Foundation
import Postgres
import ScorecastLogging
import ServiceBase

/// `scorecast-bench`'s command line.
enum BenchCommand {
    static let usage = """
    USAGE: scorecast-bench run [options]     run the benchmark, write results.md and results.json
           scorecast-bench sim [apns-sim options]   the APNs simulator (same flags as scorecast apns-sim)
           scorecast-bench render [--quick | --rounds N]   time ingest's rendering alone (no database)

    Options of run:
      --quick                 short runs for iteration (memory run ~60 s)
      --parts LIST            which parts, e.g. 1,2 (default 1,2,3,4,5,6,7)
      --client-batch N        broadcasts per batch in part 1's batched client run (default 25; its
                              lanes: connections × 100 streams ÷ N)
      --devices N             devices following the kick-off game in part 6 (default 1000000; 100000 with --quick)
      --memory-seconds N      length of the memory run (default 600; 60 with --quick)
      --memory-rate N         events/s fed during the memory run (default 1000)
      --saturday-matches N    matches replaying the bundled match in part 7 (default 300; 60 with --quick)
      --saturday-speed S      part 7's time compression: S× faster than real pace, so its quiet spells
                              are S× shorter (default 30; 60 with --quick; 1 = real pace, ~2 hours)
      --rates LIST            end-to-end event rates (default 500,1000,2000)
      --profile-rate N        events/s of part 3's profiled run (default: the lowest rate not
                              sustained); a fixed rate makes WAL and profiles comparable
                              between runs
      --games N               live games (default 1000)
      --channels N            channels per game, one per app (default 4)
      --alerting-percent P    share of alerting events (default 30)
      --out DIR               where results go (default .build/bench)
      --scorecast PATH        the scorecast binary (default: next to this one)
      --scripts DIR           the folder of aioapns_peer.py (default Deploy/bench)
      --serve-env KEY=VALUE   an extra SCORECAST_* setting for every scorecast serve (repeatable);
                              the default is scorecast's own defaults
      --postgres-setting NAME=VALUE
                              an extra postgresql.conf setting for the benchmark's embedded Postgres
                              (repeatable), after SCORECAST_EMBEDDED_POSTGRES_SETTINGS from this
                              environment; both override scorecast's workload settings
    """

    /// Runs the command line and returns the exit code.
    static func main(_ arguments: [String]) async -> Int32 {
        guard let verb = arguments.first else {
            print(usage)
            return 2
        }
        switch verb {
        case "sim":
            // Warnings only, as `scorecast apns-sim`, unless the settings table's SCORECAST_LOG_LEVEL
            // asks for more (debug shows the simulator's connection errors).
            let level: LogLevel
            if ProcessInfo.processInfo.environment[Setting.logLevel.name] == nil {
                level = .warning
            } else {
                do {
                    level = try Configuration.load().logLevel
                } catch {
                    FileHandle.standardError.write(Data("scorecast-bench sim: \(error)\n".utf8))
                    return 2
                }
            }
            return await SimulatorCommand.run(arguments: Array(arguments.dropFirst()), logger: Logger(label: "apns-sim", level: level))
        case "run":
            let options: BenchOptions
            do {
                options = try BenchOptions(Array(arguments.dropFirst()))
            } catch {
                FileHandle.standardError.write(Data("scorecast-bench: \(error)\n".utf8))
                return 2
            }
            return await BenchRun(options: options).run()
        case "render":
            let benchmark: RenderBenchmark
            do {
                benchmark = try RenderBenchmark(arguments: Array(arguments.dropFirst()))
            } catch {
                FileHandle.standardError.write(Data("scorecast-bench render: \(error)\n".utf8))
                return 2
            }
            do {
                print(try benchmark.run().joined(separator: "\n"))
                return 0
            } catch {
                FileHandle.standardError.write(Data("scorecast-bench render: \(error)\n".utf8))
                return 1
            }
        case "--help", "-h", "help":
            print(usage)
            return 0
        default:
            FileHandle.standardError.write(Data("scorecast-bench: unknown command '\(verb)'\n\(usage)\n".utf8))
            return 2
        }
    }
}

/// The options of `scorecast-bench run`.
struct BenchOptions: Sendable {
    var quick = false
    var parts: Set<Int> = [1, 2, 3, 4, 5, 6, 7]
    var saturdayMatches: Int?
    var saturdaySpeed: Double?
    var devices: Int?
    /// Broadcasts per batch in part 1's batched run.
    var clientBatch = 25
    var memorySeconds: Int?
    var memoryRate = 1000
    var rates = [500, 1000, 2000]
    /// Events/s of part 3's profiled run; `nil` for the lowest rate not sustained.
    var profileRate: Int?
    var games = 1000
    var channelsPerGame = 4
    var alertingShare = 0.3
    var outputFolder = ".build/bench"
    var scorecastBinary: String?
    var scriptsFolder = "Deploy/bench"
    var serveEnvironment: [String: String] = [:]
    /// Extra settings of the embedded Postgres: SCORECAST_EMBEDDED_POSTGRES_SETTINGS, then
    /// each `--postgres-setting`.
    var postgresSettings: [PostgresServerSetting] = []
    /// The arguments as given, for the report.
    var arguments: [String]

    /// The options of `run` (described in `usage`).
    static let options: [OptionSpec] = [
        .flag("quick", "a short run"),
        .value("parts", "N[,N…]", "parts 1–7 to run"),
        .value("saturday-matches", "N", "matches in part 7"),
        .value("saturday-speed", "S", "part 7's time compression"),
        .value("memory-seconds", "S", "how long the memory part runs"),
        .value("memory-rate", "N", "events/s during the memory part"),
        .value("rates", "N[,N…]", "end-to-end event rates"),
        .value("profile-rate", "N", "events/s of part 3's profiled run"),
        .value("devices", "N", "devices following the kick-off game in part 6"),
        .value("client-batch", "N", "broadcasts per batch in part 1's batched run"),
        .value("games", "N", "games in the end-to-end runs"),
        .value("channels", "N", "channels per game"),
        .value("alerting-percent", "P", "share of alerting events"),
        .value("serve-env", "SCORECAST_NAME=VALUE", repeatable: true, "a setting for the served process"),
        .value("postgres-setting", "NAME=VALUE", repeatable: true, "a setting for the embedded Postgres"),
        .value("out", "FOLDER", "where the report goes"),
        .value("scorecast", "PATH", "the scorecast binary"),
        .value("scripts", "FOLDER", "the bench scripts"),
    ]

    /// Parses the arguments after `run` (and SCORECAST_EMBEDDED_POSTGRES_SETTINGS from
    /// `environment`); the error names the bad option.
    init(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws(BenchError) {
        self.arguments = arguments
        if let text = environment[Self.postgresSettingsVariable] {
            do {
                postgresSettings = try PostgresServerSetting.list(text)
            } catch {
                throw BenchError("\(Self.postgresSettingsVariable): \(error.message)")
            }
        }
        let parsed: ParsedArguments
        do {
            parsed = try ParsedArguments(arguments, options: Self.options)
        } catch {
            throw BenchError(error.message)
        }
        if let unexpected = parsed.positionals.first { throw BenchError("unexpected argument '\(unexpected)'") }
        func integers(_ flag: String, _ text: String) throws(BenchError) -> [Int] {
            let numbers = text.split(separator: ",").compactMap { Int($0) }
            guard !numbers.isEmpty, numbers.count == text.split(separator: ",").count, numbers.allSatisfy({ $0 > 0 }) else {
                throw BenchError("\(flag) takes positive whole numbers separated by commas, got '\(text)'")
            }
            return numbers
        }
        for (name, given) in parsed.given {
            let flag = "--" + name
            let value = given ?? ""
            switch flag {
            case "--quick": quick = true
            case "--parts": parts = Set(try integers(flag, value))
            case "--memory-seconds": memorySeconds = try integers(flag, value)[0]
            case "--memory-rate": memoryRate = try integers(flag, value)[0]
            case "--saturday-matches": saturdayMatches = try integers(flag, value)[0]
            case "--saturday-speed":
                guard let speed = Double(value), speed.isFinite, speed >= 1 else {
                    throw BenchError("--saturday-speed takes a number ≥ 1 (1 = real pace), got '\(value)'")
                }
                saturdaySpeed = speed
            case "--rates": rates = try integers(flag, value)
            case "--profile-rate": profileRate = try integers(flag, value)[0]
            case "--devices": devices = try integers(flag, value)[0]
            case "--client-batch": clientBatch = try integers(flag, value)[0]
            case "--games": games = try integers(flag, value)[0]
            case "--channels": channelsPerGame = try integers(flag, value)[0]
            case "--alerting-percent":
                let percent = try integers(flag, value)[0]
                guard percent <= 100 else { throw BenchError("--alerting-percent takes 0–100, got \(percent)") }
                alertingShare = Double(percent) / 100
            case "--serve-env":
                let setting = value
                let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, parts[0].hasPrefix("SCORECAST_") else {
                    throw BenchError("--serve-env takes SCORECAST_NAME=VALUE, got '\(setting)'")
                }
                serveEnvironment[parts[0]] = parts[1]
            case "--postgres-setting":
                do {
                    postgresSettings.append(try PostgresServerSetting(assignment: value))
                } catch {
                    throw BenchError("--postgres-setting: \(error.message)")
                }
            case "--out": outputFolder = value
            case "--scorecast": scorecastBinary = value
            case "--scripts": scriptsFolder = value
            default: throw BenchError("unknown option \(flag)")  // the parser refused it already
            }
        }
        if let wrong = parts.first(where: { !(1...7).contains($0) }) { throw BenchError("--parts: there is no part \(wrong)") }
    }

    /// The variable that gives `scorecast` its embedded Postgres's extra settings; the
    /// benchmark passes it to its own cluster and keeps it from the processes it starts
    /// (they use a database URL, where the variable is refused).
    static let postgresSettingsVariable = Setting.embeddedPostgresSettings.name

    /// Part 7's matches.
    var saturdayMatchCount: Int { saturdayMatches ?? (quick ? 60 : 300) }
    /// Part 7's time compression.
    var saturdaySpeedFactor: Double { saturdaySpeed ?? (quick ? 60 : 30) }
}
