@testable import Demo
import Foundation
import HTTPServer
import Lifecycle
import Migrations
import ScorecastLogging
import Postgres
@testable import Server
@testable import ServiceBase
import Testing
import TestSupport

/// Every resource `Application.run` starts is a service of one group, so a start-up that fails
/// half-way stops what it had started instead of leaking it.
@Suite("Application start-up failures")
struct ApplicationStartFailureTests {
    @Test(.timeLimit(.minutes(2)))
    func aTakenHTTPPortStopsTheSimulatorItHadStarted() async throws {
        let state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("app-start-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        // Another server holds the port the application is told to use.
        let holder = HTTPServer(configuration: HTTPServerConfiguration(port: 0), router: Router(), logger: Logger(label: "holder", level: .critical))
        try holder.start()
        // The schema is migrated here, by a pool without a statement timeout: migrations of
        // every test share one advisory lock, and under a loaded CI machine the wait for it
        // outlasted the application's 30 s statement timeout (the start then failed before the
        // simulator, for the wrong reason).
        let schema = try await TestDatabase.shared().makeSchema()
        let pool = PostgresPool(configuration: schema, maxConnections: 1, logger: TestDatabase.logger)
        try await Migrator(files: try SchemaFolder.read(ScorecastProcess.schemaFolder),
                           logger: TestDatabase.logger).migrate(pool)
        await pool.close()
        let environment = [
            "SCORECAST_STATE_DIR": state.path,
            "SCORECAST_DATABASE_URL": schema.testConnectionString,
            "SCORECAST_AUTO_MIGRATE": "false",
            "SCORECAST_HTTP_PORT": String(holder.port),
            "SCORECAST_SCHEMA_DIR": ScorecastProcess.schemaFolder.path,
            "SCORECAST_LOG_LEVEL": "critical",
        ]
        let configuration = try Configuration.load(from: environment)
        #expect(configuration.apns == .builtInSimulator)

        let application = Application(configuration: configuration, environment: environment, terminal: Terminal(), builtInAPNs: BuiltInSimulatorAPNs())
        // It fails, and for the taken port, not for anything before the simulator started.
        let error = await #expect(throws: (any Error).self) { try await application.run() }
        #expect("\(error.map { "\($0)" } ?? "")".contains(String(holder.port)), "\(error.map { "\($0)" } ?? "")")
        let stopHolder = ShutdownSignal()
        stopHolder.trigger()
        try await holder.run(until: stopHolder)

        // The simulator did start (it made its certificate in its folder) before the HTTP
        // server failed, and was stopped: the file that tells CLI commands where it listens,
        // removed only when it stops, is gone.
        let folder = BuiltInSimulatorFile.folder(stateDirectory: state).path
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: folder)).isEmpty)
        #expect(try BuiltInSimulatorFile.read(stateDirectory: state) == nil)
    }
}
