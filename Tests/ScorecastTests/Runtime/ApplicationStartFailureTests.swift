import Foundation
import HTTPServer
import Lifecycle
import Logging
import Postgres
import Testing
import TestSupport
@testable import Scorecast

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
        let environment = [
            "SCORECAST_STATE_DIR": state.path,
            "SCORECAST_DATABASE_URL": try await TestDatabase.shared().makeSchema().testConnectionString,
            "SCORECAST_HTTP_PORT": String(holder.port),
            "SCORECAST_SCHEMA_DIR": ScorecastProcess.packageRoot.appendingPathComponent("Schema").path,
            "SCORECAST_LOG_LEVEL": "critical",
            // Nothing may fail the start for another reason first: no migration (it waits on the
            // migration lock other tests hold, past the statement timeout on a loaded machine;
            // the APNs runtime treats an unmigrated schema as no apps), generous timeouts.
            "SCORECAST_AUTO_MIGRATE": "false",
            "SCORECAST_DATABASE_CONNECT_TIMEOUT_SECONDS": "120",
            "SCORECAST_DATABASE_STATEMENT_TIMEOUT_MS": "120000",
        ]
        let configuration = try Configuration.load(from: environment)
        #expect(configuration.apns == .builtInSimulator)

        let application = Application(configuration: configuration, environment: environment, terminal: Terminal())
        let failure = await #expect(throws: HTTPServerError.self) { try await application.run() }
        #expect(failure?.code == .startFailed, "\(String(describing: failure))")
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
