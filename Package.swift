// swift-tools-version:6.0
import PackageDescription

// Layers, one way only: C leaves, and the Swift leaves (JSON, Arguments, Clocks, CurlHTTP,
// ScorecastLogging, Lifecycle, ChildProcesses, ScorecastCrypto) → adapters (Postgres, APNs,
// HTTPServer, APNsSimulator) → the application's modules (PrometheusMetrics, Migrations, then
// the service's own layers, ServiceBase to Demo, and ScorecastCLI, its command line, which
// nothing but the executable imports) → the executables. The pure modules (ScorecastCore, the
// sports domain; DeliveryEngine, the delivery rules; APNsCore, APNs' vocabulary;
// ScorecastActivity, the iOS contract) have no I/O and no C. Adapters depend on
// the leaves (and APNs on APNsCore), never on ScorecastCore, and on each other in one place only:
// the simulator serves its admin API with HTTPServer. The simulator keeps its own table of APNs
// reasons, from Apple's documents, so its rules do not come from the client it tests.
// ScorecastLogging and ScorecastCrypto carry the project's name so swift-log's `Logging` and
// swift-crypto's `Crypto` can join the package later without a module-name clash.
let package = Package(
    name: "scorecast",
    platforms: [.macOS(.v15), .iOS("16.1")],
    products: [
        .executable(name: "scorecast", targets: ["scorecast"]),
        // The iOS contract an app adds as a dependency: ContentState, GameAttributes, strings.
        .library(name: "ScorecastActivity", targets: ["ScorecastActivity"]),
    ],
    targets: [
        // C leaves: a module map and a shim header each.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // nghttp2 only for the simulator's HTTP/2 server; every client speaks through CCurl.
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        // glibc's malloc statistics (mallinfo2) for /metrics' heap gauges; empty without glibc.
        .systemLibrary(name: "CMalloc"),
        // Names a thread for the kernel (top -H, ps -L, perf), which Foundation does not reliably do.
        .systemLibrary(name: "CThreadName"),

        // The one strict JSON parser and encoder every module uses: a leaf, no dependencies.
        // Foundation's JSON coders are named in two files only: JSON/JSONCoding.swift, the one
        // configuration every Codable value is written and read with (it wraps them rather than
        // duplicate Codable's containers), and a comment of the applied migration
        // Migrations/Schema/0001_initial.sql (an applied file never changes).
        .target(name: "JSON"),
        // The one command-line parser (the CLI, `apns-sim` and the bench): a leaf.
        .target(name: "Arguments"),
        // The one clock the service reads and waits on (wall time for what is stored, a monotonic
        // reading for deadlines), and the manual one tests move: a leaf, Foundation only. The
        // simulator keeps a clock of its own: it plays Apple, another party.
        .target(name: "Clocks"),

        // The iOS contract (Swift + Foundation only; builds for iOS, macOS and Linux). The
        // String Catalog is for the app's own target, not a resource of this module.
        .target(name: "ScorecastActivity", exclude: ["Localizable.xcstrings"]),

        // APNs' vocabulary, no I/O: environments, push targets, priorities, the Live Activity
        // payload and its limits, reasons and their classes. The APNs client speaks it without
        // knowing the sports domain.
        .target(name: "APNsCore", dependencies: ["JSON"]),

        // The domain: no I/O, no C. It renders through ScorecastActivity's types.
        .target(name: "ScorecastCore", dependencies: ["JSON", "ScorecastActivity", "APNsCore"]),
        // The delivery engine's rules, no I/O: a channel's outbox as one state machine (merge,
        // compose, settle), its budget, retries and the host breaker. The store only applies
        // what it decides; time is an input of every rule.
        .target(name: "DeliveryEngine", dependencies: ["JSON", "APNsCore", "ScorecastCore"]),

        // The project's one HTTP client library: libcurl's global setup and header lists shared
        // by APNs' HTTP/2 transport (multi interface), and CurlHTTPConnection (easy interface)
        // for the CLI's events send, the demo's replay, the application's calls to the built-in
        // simulator's admin API and the benchmark's feed. A leaf on CCurl, so adapters use it without depending on each other.
        .target(name: "CurlHTTP", dependencies: ["CCurl", "CThreadName"]),

        // Cross-cutting leaves: levelled logging, and services run and stopped by one group.
        .target(name: "ScorecastLogging", dependencies: ["JSON", "Clocks"]),
        .target(name: "Lifecycle", dependencies: ["ScorecastLogging", "CThreadName"]),
        // The one way to run a child process (posix_spawn, output to files, reaped by `wait4` on
        // its own pid): the embedded Postgres, the benchmark and the tests.
        .target(name: "ChildProcesses"),

        // Signing and hashing on libcrypto (P-256, ES256, SHA-256, HMAC, certificates): a leaf
        // shared by APNs, the simulator, migrations and the application.
        .target(name: "ScorecastCrypto", dependencies: ["COpenSSL", "JSON"]),

        // Adapters.
        .target(name: "Postgres", dependencies: ["CLibPQ", "JSON", "ScorecastLogging", "ChildProcesses"]),
        // APNs' HTTP/2 transport is libcurl's multi interface (docs/decisions/libcurl.md).
        .target(name: "APNs", dependencies: ["JSON", "APNsCore", "Clocks", "ScorecastCrypto", "ScorecastLogging", "CCurl", "CurlHTTP", "CThreadName"]),
        .target(name: "HTTPServer", dependencies: ["JSON", "ScorecastLogging", "Lifecycle", "CMicroHTTPD", "CThreadName"]),
        .target(name: "APNsSimulator", dependencies: ["JSON", "Arguments", "ScorecastCrypto", "ScorecastLogging", "Lifecycle", "COpenSSL", "CNGHTTP2", "HTTPServer", "CThreadName"]),

        // The application's own modules: the Prometheus metrics registry and its text exposition
        // (a leaf), the leased queue every table of work shares (one claim, lease rule, heartbeat,
        // release and rescue, as statements the stores run), and the numbered schema migrations, whose SQL files (Migrations/Schema/) the
        // binary carries: SwiftPM embeds each as a byte array, listed in BuiltInMigrations.swift.
        .target(name: "PrometheusMetrics"),
        .target(name: "LeasedQueue", dependencies: ["Clocks", "Postgres"]),
        .target(name: "Migrations", dependencies: ["ScorecastCrypto", "ScorecastLogging", "Postgres"], resources: [.embedInCode("Schema")]),

        // The service, in layers one way only, its delivery decided by the pure DeliveryEngine:
        // ServiceBase (what every part shares: the settings table and Configuration, the metric
        // families and their labels; the clock is the Clocks leaf) →
        // Registry (apps, games and channels, and ingest, which folds feed events into games
        // and queues their broadcasts) → Delivery (the workers that claim the queue and send) →
        // Devices (follows, push-to-start, token updates) and Statistics (/v1/stats, the
        // dashboard, /metrics' gauges) → Server (the runtime that starts every role as one
        // service group, the HTTP API, the poller) → Demo (the built-in APNs simulator, which the
        // server knows only as a `BuiltInAPNs` the command line hands it, and the demo match
        // replayed through a running server). DemoMatch is the bundled match itself, data without I/O.
        // They and ScorecastCLI declare `package`, not `public`: nothing outside this package
        // imports them (the reusable modules above stay `public`).
        .target(name: "ServiceBase", dependencies: ["LeasedQueue", "APNs", "APNsCore", "Clocks", "Migrations", "Postgres", "PrometheusMetrics", "ScorecastCore", "DeliveryEngine", "ScorecastCrypto", "ScorecastLogging"]),
        .target(name: "DemoMatch", dependencies: ["JSON", "ScorecastCore"]),
        .target(name: "Registry", dependencies: ["LeasedQueue", "Clocks", "ServiceBase", "APNs", "APNsCore", "CurlHTTP", "HTTPServer", "JSON", "Lifecycle", "Postgres", "ScorecastActivity", "ScorecastCore", "DeliveryEngine", "ScorecastCrypto", "ScorecastLogging"]),
        .target(name: "Delivery", dependencies: ["LeasedQueue", "Clocks", "ServiceBase", "Registry", "APNs", "APNsCore", "JSON", "Lifecycle", "Postgres", "PrometheusMetrics", "ScorecastCore", "DeliveryEngine", "ScorecastLogging"]),
        .target(name: "Devices", dependencies: ["LeasedQueue", "Clocks", "ServiceBase", "Registry", "Delivery", "APNs", "APNsCore", "HTTPServer", "JSON", "Lifecycle", "Postgres", "PrometheusMetrics", "ScorecastActivity", "ScorecastCore", "DeliveryEngine", "ScorecastCrypto", "ScorecastLogging"]),
        .target(
            name: "Statistics",
            dependencies: ["LeasedQueue", "Clocks", "ServiceBase", "Registry", "Delivery", "DemoMatch", "APNsCore", "CMalloc", "HTTPServer", "JSON", "Postgres", "PrometheusMetrics", "ScorecastActivity", "ScorecastCore", "DeliveryEngine", "ScorecastCrypto"],
            // The dashboard's page, style sheet and script, carried in the binary (DashboardPage).
            resources: [.embedInCode("Dashboard/Assets")]
        ),
        .target(name: "Server", dependencies: ["LeasedQueue", "Clocks", "ServiceBase", "Registry", "Delivery", "Devices", "Statistics", "APNs", "APNsCore", "HTTPServer", "JSON", "Lifecycle", "Migrations", "Postgres", "PrometheusMetrics", "ScorecastCore", "DeliveryEngine", "ScorecastCrypto", "ScorecastLogging"]),
        .target(name: "Demo", dependencies: ["Clocks", "ServiceBase", "Registry", "Server", "DemoMatch", "APNs", "APNsSimulator", "CurlHTTP", "JSON", "Lifecycle", "Postgres", "ScorecastCore", "DeliveryEngine", "ScorecastCrypto", "ScorecastLogging"]),
        // The command line on top of the service: the commands, their options, help and output,
        // and exit codes. No business logic: a command parses, calls the service, prints.
        .target(
            name: "ScorecastCLI",
            dependencies: ["Clocks", "ServiceBase", "Registry", "Devices", "Statistics", "Server", "DemoMatch", "Demo", "Arguments", "JSON", "ScorecastCore", "DeliveryEngine", "ScorecastLogging", "Lifecycle", "Postgres", "APNsSimulator", "Migrations", "APNsCore"]
        ),
        // The one executable: `main.swift` sets up signals and runs the CLI.
        .executableTarget(name: "scorecast", dependencies: ["ScorecastCLI"]),
        // The benchmark (Deploy/bench.sh): client vs h2load, peer, end to end, memory, scaling.
        .executableTarget(name: "scorecast-bench", dependencies: ["Clocks", "Arguments", "JSON", "ServiceBase", "Registry", "Statistics", "DemoMatch", "APNs", "APNsSimulator", "Postgres", "ScorecastCrypto", "ScorecastCore", "DeliveryEngine", "ScorecastLogging", "CurlHTTP", "ChildProcesses"]),

        // Tests.
        .target(name: "TestSupport", dependencies: ["Postgres", "ScorecastCrypto", "ScorecastLogging", "ChildProcesses", "HTTPServer", "CurlHTTP"], path: "Tests/TestSupport"),
        .testTarget(name: "JSONTests", dependencies: ["JSON"]),
        .testTarget(name: "ArgumentsTests", dependencies: ["Arguments"]),
        .testTarget(name: "ScorecastCoreTests", dependencies: ["ScorecastCore", "JSON", "ScorecastActivity", "APNsCore", "TestSupport"]),
        .testTarget(name: "DeliveryEngineTests", dependencies: ["DeliveryEngine", "ScorecastCore", "JSON", "APNsCore", "TestSupport"]),
        .testTarget(name: "APNsCoreTests", dependencies: ["APNsCore", "JSON"]),
        // Captured/ holds payloads the tests read from their own folder (not bundled resources).
        .testTarget(name: "ScorecastActivityTests", dependencies: ["ScorecastActivity", "ScorecastCore"], exclude: ["Captured"]),
        .testTarget(name: "LifecycleTests", dependencies: ["Lifecycle", "ScorecastLogging"]),
        .testTarget(name: "ScorecastLoggingTests", dependencies: ["ScorecastLogging", "Clocks"]),
        .testTarget(name: "ChildProcessesTests", dependencies: ["ChildProcesses"]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "LeasedQueue", "TestSupport"]),
        .testTarget(name: "ScorecastCryptoTests", dependencies: ["ScorecastCrypto", "TestSupport"]),
        .testTarget(name: "CurlHTTPTests", dependencies: ["CurlHTTP", "HTTPServer", "ScorecastLogging"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["JSON", "HTTPServer", "TestSupport"]),
        .testTarget(name: "APNsTests", dependencies: ["JSON", "APNs", "Clocks", "CCurl", "APNsSimulator", "APNsCore", "ScorecastCrypto", "TestSupport"]),
        .testTarget(name: "APNsMemoryTests", dependencies: ["Clocks", "APNs", "APNsSimulator", "Statistics", "ScorecastCrypto", "ScorecastLogging", "Lifecycle", "TestSupport"]),
        .testTarget(name: "APNsSimulatorTests", dependencies: ["JSON", "APNsSimulator", "ScorecastCrypto", "TestSupport"]),
        .testTarget(name: "ScorecastTests", dependencies: ["LeasedQueue", "Clocks", "JSON", "ServiceBase", "Registry", "Delivery", "Devices", "Statistics", "Server", "DemoMatch", "Demo", "ScorecastCore", "DeliveryEngine", "Postgres", "HTTPServer", "APNs", "APNsSimulator", "ScorecastCrypto", "Lifecycle", "ScorecastLogging", "TestSupport", "PrometheusMetrics", "Migrations", "APNsCore", "PhoneModel"]),
        .testTarget(name: "ScorecastCLITests", dependencies: ["Clocks", "ScorecastCLI", "Registry", "Statistics", "Server", "Arguments", "Postgres"]),
        .testTarget(name: "PrometheusMetricsTests", dependencies: ["PrometheusMetrics"]),
        // FormerTexts: applied migrations as they were before their comments were corrected.
        .testTarget(name: "MigrationsTests", dependencies: ["Migrations", "Postgres", "ScorecastCrypto", "ScorecastLogging", "TestSupport"], exclude: ["FormerTexts"]),
        .testTarget(name: "ScorecastBenchTests", dependencies: ["Clocks", "scorecast-bench", "ScorecastCore", "DeliveryEngine", "Postgres", "TestSupport", "APNsSimulator", "Lifecycle", "ScorecastLogging", "CThreadName"]),
        .target(
            name: "EndToEndSupport", dependencies: ["Clocks", "TestSupport", "JSON", "ScorecastCore", "DeliveryEngine", "Postgres", "APNs", "APNsSimulator", "ScorecastCrypto", "Lifecycle", "ScorecastLogging"],
            path: "Tests/EndToEndSupport"),
        // What ActivityKit does with the broadcasts the simulator accepted: the phone in the tests.
        .target(name: "PhoneModel", dependencies: ["ScorecastActivity", "JSON", "APNsSimulator"], path: "Tests/PhoneModel"),
        .testTarget(name: "PhoneModelTests", dependencies: ["PhoneModel", "ScorecastActivity", "APNsSimulator"]),
        // The bundled demo match (`DemoFeed`) and ingest's decision (`GameFold`) to check the binary against.
        .testTarget(name: "EndToEndTests", dependencies: ["Clocks", "EndToEndSupport", "TestSupport", "HTTPServer", "JSON", "Postgres", "APNs", "APNsSimulator", "ScorecastCrypto", "Lifecycle", "ScorecastLogging", "ScorecastCore", "DeliveryEngine", "PhoneModel", "ScorecastActivity", "DemoMatch", "Registry", "ServiceBase"]),
        // The delivery guarantee under faults: the built binary, real Postgres, the simulator's faults.
        .testTarget(name: "FaultTests", dependencies: ["Clocks", "EndToEndSupport", "TestSupport", "JSON", "Postgres", "APNsSimulator", "ScorecastCore", "DeliveryEngine"]),
        // Deployment: the Debian package installed with dpkg, the systemd units, the container and manifests.
        .testTarget(name: "DeployTests", dependencies: ["TestSupport", "Postgres"]),
        // The README and docs/: links resolve, the code's `apns.md §N` references are headings.
        .testTarget(name: "DocumentationTests"),
    ],
    swiftLanguageModes: [.v6]
)
