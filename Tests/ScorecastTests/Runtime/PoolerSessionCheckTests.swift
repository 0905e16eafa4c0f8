@testable import Server
import Testing

/// The check of a pooled session's settings (the formats the decoders read).
@Suite struct PoolerSessionCheckTests {
    @Test func postgresDefaultsPass() {
        #expect(PoolerSessionCheck.problem(dateStyle: "ISO, MDY", intervalStyle: "postgres", extraFloatDigits: "1") == nil)
        #expect(PoolerSessionCheck.problem(dateStyle: "ISO, DMY", intervalStyle: "postgres", extraFloatDigits: "3") == nil)
    }

    @Test func eachWrongSettingIsNamedWithItsFix() throws {
        let problem = try #require(PoolerSessionCheck.problem(dateStyle: "German, DMY", intervalStyle: "iso_8601", extraFloatDigits: "0"))
        #expect(problem.contains("SCORECAST_DATABASE_POOLER=transaction"))
        #expect(problem.contains("DateStyle is 'German, DMY' (ALTER ROLE … SET DateStyle = 'ISO, MDY')"))
        #expect(problem.contains("IntervalStyle is 'iso_8601'"))
        #expect(problem.contains("extra_float_digits is 0"))
    }

    @Test func aRoleTimeoutOtherThanTheSettingIsWorthAWarning() throws {
        #expect(PoolerSessionCheck.timeoutWarning(roleMilliseconds: 30_000, configured: .milliseconds(30_000)) == nil)
        let warning = try #require(PoolerSessionCheck.timeoutWarning(roleMilliseconds: 0, configured: .seconds(30)))
        #expect(warning.contains("(0 ms, 0 = never)") && warning.contains("SET statement_timeout = 30000"), "\(warning)")
    }
}
