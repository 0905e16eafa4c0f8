@testable import Postgres
import TestSupport
import Testing

@Suite struct PostgresConfigurationTests {
    @Test func parsesAURL() throws {
        let configuration = try PostgresConfiguration(
            url: "postgres://scorer:s%40cret@db.example:6543/scorecast?sslmode=require&application_name=worker&connect_timeout=3")
        #expect(configuration.host == "db.example")
        #expect(configuration.port == 6543)
        #expect(configuration.user == "scorer")
        #expect(configuration.password == "s@cret")
        #expect(configuration.database == "scorecast")
        #expect(configuration.sslMode == "require")
        #expect(configuration.applicationName == "worker")
        #expect(configuration.connectTimeout == .seconds(3))
    }

    @Test func parsesAKeyValueString() throws {
        let configuration = try PostgresConfiguration(
            connectionString: "host=/var/run/postgresql dbname='my db' user=me password='p w' sslrootcert=/ca.pem")
        #expect(configuration.host == "/var/run/postgresql")
        #expect(configuration.database == "my db")
        #expect(configuration.password == "p w")
        #expect(configuration.parameters == ["sslrootcert": "/ca.pem"])
    }

    @Test func rejectsBadInputWithoutEchoingThePassword() {
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "mysql://x") }
        #expect(throws: PostgresError.self) { try PostgresConfiguration(connectionString: "host=x nonsense=1") }
        #expect(throws: PostgresError.self) { try PostgresConfiguration(url: "postgres://u:p@h:99999/db") }
        do {
            _ = try PostgresConfiguration(url: "postgres://user:TopSecret99@[::1/db")
            Issue.record("a malformed URL was accepted")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(!error.description.contains("TopSecret99"), "\(error)")
        }
    }

    @Test func descriptionNeverShowsPasswords() throws {
        var configuration = try PostgresConfiguration(url: "postgres://u:TopSecret99@h:5432/db")
        configuration.parameters["sslpassword"] = "KeyPass77"
        configuration.statementTimeout = .seconds(5)
        let text = configuration.description
        #expect(!text.contains("TopSecret99"))
        #expect(!text.contains("KeyPass77"))
        #expect(text.hasPrefix("postgres://u:********@h:5432/db?"))
        #expect(text.contains("statement_timeout=5.0 seconds"))
    }

    @Test func sessionSettingsTravelInOptions() {
        var configuration = PostgresConfiguration(
            statementTimeout: .milliseconds(1500), searchPath: ["t_1", "odd schema"],
            parameters: ["options": "-c work_mem=8MB"])
        #expect(configuration.sessionOptions == #"-c work_mem=8MB -c DateStyle=ISO,MDY -c TimeZone=UTC -c IntervalStyle=postgres -c extra_float_digits=1 -c statement_timeout=1500 -c search_path="t_1","odd\ schema""#)
        configuration.statementTimeout = nil
        configuration.searchPath = nil
        configuration.parameters = [:]
        #expect(!configuration.sessionOptions.contains("statement_timeout"))
        let pairs = Dictionary(configuration.libpqParameters(), uniquingKeysWith: { $1 })
        #expect(pairs["client_encoding"] == "UTF8")
        #expect(pairs["connect_timeout"] == "10")
        #expect(pairs["password"] == nil)
    }

    @Test func theURLFormRoundTrips() throws {
        let original = PostgresConfiguration(
            host: "db.example", port: 5433, user: "sc@rer", password: "p:a/s s", database: "my db", sslMode: "require",
            connectTimeout: .seconds(4), statementTimeout: .seconds(2), applicationName: "worker 1",
            searchPath: ["t_1"], parameters: ["target_session_attrs": "read-write"])
        let url = original.urlIncludingPassword
        let parsed = try PostgresConfiguration(url: url)
        #expect(parsed.host == "db.example")
        #expect(parsed.port == 5433)
        #expect(parsed.user == "sc@rer")
        #expect(parsed.password == "p:a/s s")
        #expect(parsed.database == "my db")
        #expect(parsed.sslMode == "require")
        #expect(parsed.applicationName == "worker 1")
        #expect(parsed.connectTimeout == .seconds(4))
        #expect(parsed.parameters["target_session_attrs"] == "read-write")
        #expect(parsed.parameters["options"] == #"-c statement_timeout=2000 -c search_path="t_1""#)
        let socket = try PostgresConfiguration(url: PostgresConfiguration(host: "/run/pg", database: "d").urlIncludingPassword)
        #expect(socket.host == "/run/pg")
    }

    @Test func aMultiHostURLGoesToLibpqAsWritten() throws {
        let configuration = try PostgresConfiguration(
            url: "postgresql://scorer:TopSecret99@h1.example:5432,h2.example:5433/scorecast?target_session_attrs=read-write")
        let pairs = Dictionary(configuration.libpqParameters(), uniquingKeysWith: { $1 })
        #expect(pairs["host"] == "h1.example,h2.example")
        #expect(pairs["port"] == "5432,5433")
        #expect(pairs["target_session_attrs"] == "read-write")
        #expect(pairs["dbname"] == "scorecast")
        #expect(!configuration.description.contains("TopSecret99"))
        #expect(configuration.description.hasPrefix("postgres://scorer:********@h1.example,h2.example/scorecast?"), "\(configuration)")
        #expect(configuration.description.contains("port=5432,5433"), "\(configuration)")
    }

    @Test func aMultiHostKeyValueStringGoesToLibpqAsWritten() throws {
        let configuration = try PostgresConfiguration(
            connectionString: "host=a.example,b.example,/run/pg port=6432,,5432 dbname=d target_session_attrs=primary")
        let pairs = Dictionary(configuration.libpqParameters(), uniquingKeysWith: { $1 })
        #expect(pairs["host"] == "a.example,b.example,/run/pg")
        #expect(pairs["port"] == "6432,,5432")
        #expect(pairs["target_session_attrs"] == "primary")
        // One port for every host is a single number, as before.
        let shared = try PostgresConfiguration(connectionString: "host=a,b port=6432")
        #expect(shared.host == "a,b" && shared.port == 6432 && shared.parameters["port"] == nil)
    }

    @Test func aListOfPortsWithABadOneIsRefusedByName() {
        for bad in ["5432,99999", "5432,x", "5432 5433"] {
            do {
                _ = try PostgresConfiguration(connectionString: "host=a,b port='\(bad)' password=TopSecret99")
                Issue.record("port \(bad) was accepted")
            } catch {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains("one per host") && error.message.contains(bad), "\(error)")
                #expect(!error.description.contains("TopSecret99"), "\(error)")
            }
        }
    }

    @Test func aMultiHostConfigurationRoundTripsThroughItsURL() throws {
        let original = try PostgresConfiguration(
            connectionString: "host=h1.example,h2.example port=5432,5433 user=u password='p:w/d' dbname=d target_session_attrs=read-write")
        let parsed = try PostgresConfiguration(url: original.urlIncludingPassword)
        #expect(parsed.host == "h1.example,h2.example")
        #expect(parsed.parameters["port"] == "5432,5433")
        #expect(parsed.password == "p:w/d")
        #expect(parsed.parameters["target_session_attrs"] == "read-write")
        #expect(parsed.database == "d")
    }

    /// libpq tries the hosts in turn: the first refuses (nothing listens on its port), the
    /// second is the test database, and `target_session_attrs` picks it because it takes writes.
    @Test(arguments: [false, true])
    func aConnectionGoesToTheHostThatAnswersOfSeveral(asURL: Bool) async throws {
        let database = try await TestDatabase.shared().configuration
        let socket = try #require(database.host)
        let port = try #require(database.port)
        let dead = try FreePort.find()
        let user = database.user ?? "postgres"
        let name = database.database ?? "postgres"
        let text = asURL
            ? "postgresql://\(user)@/\(name)?host=127.0.0.1,\(socket.replacingOccurrences(of: "/", with: "%2F"))&port=\(dead),\(port)&target_session_attrs=read-write"
            : "host=127.0.0.1,\(socket) port=\(dead),\(port) user=\(user) dbname=\(name) target_session_attrs=read-write"
        var configuration = try PostgresConfiguration(connectionString: text)
        configuration.password = database.password
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)
        let rows = try await connection.query("SELECT inet_server_port() IS NULL AS over_socket, pg_is_in_recovery() AS standby")
        #expect(try rows[0].decode("over_socket", as: Bool.self))
        #expect(try !rows[0].decode("standby", as: Bool.self))
        await connection.close()
    }
}
