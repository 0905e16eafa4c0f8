import Foundation
import ServiceBase
import Testing

/// `--env-file` reads a file as systemd's `EnvironmentFile=` does: quoting, escapes, comments,
/// and an `&` in a URL kept (the `sh` recipe emptied it).
@Suite struct EnvironmentFileTests {
    @Test func valuesAreReadAsSystemdReadsThem() throws {
        let file = try EnvironmentFile(parsing: #"""
            # scorecast settings
            ; also a comment
            SCORECAST_DATABASE_URL=postgres://scorecast:s3cret@db.internal/scorecast?sslmode=require&application_name=cli
              SCORECAST_HTTP_HOST = 0.0.0.0
            SCORECAST_LOG_LEVEL="notice"
            SCORECAST_OPS_TOKEN='a $literal "token" \n'
            DOUBLE="say \"hi\" \\ \$HOME \n"
            SPACED=  keep  inner   spaces
            CONTINUED=first \
            second
            HASH=value # not a comment
            EMPTY=
            MIXED=a"b c"d'e f'
            SCORECAST_LOG_LEVEL=info
            """#)
        let values = file.values
        #expect(values["SCORECAST_DATABASE_URL"] == "postgres://scorecast:s3cret@db.internal/scorecast?sslmode=require&application_name=cli")
        #expect(values["SCORECAST_HTTP_HOST"] == "0.0.0.0")
        #expect(values["SCORECAST_OPS_TOKEN"] == #"a $literal "token" \n"#)
        #expect(values["DOUBLE"] == #"say "hi" \ $HOME \n"#)
        #expect(values["SPACED"] == "keep  inner   spaces")
        #expect(values["CONTINUED"] == "first second")
        #expect(values["HASH"] == "value # not a comment")
        #expect(values["EMPTY"] == "")
        #expect(values["MIXED"] == "ab cde f")
        #expect(values["SCORECAST_LOG_LEVEL"] == "info", "the last assignment wins")
        #expect(file.assignments.count == 11)
    }

    @Test func badLinesAreNamedWithoutTheirValues() {
        #expect(throws: EnvironmentFile.ParseError(line: 2, reason: "expected NAME=value")) {
            try EnvironmentFile(parsing: "A=1\nexport-less line\n")
        }
        #expect(throws: EnvironmentFile.ParseError(line: 1, reason: "'1A' is not a variable name (letters, digits and _, not starting with a digit)")) {
            try EnvironmentFile(parsing: "1A=x")
        }
        #expect(throws: EnvironmentFile.ParseError(line: 3, reason: "a single quote is not closed")) {
            try EnvironmentFile(parsing: "A=1\n\nB='secret\n")
        }
        do {
            _ = try EnvironmentFile(parsing: "TOKEN=\"hunter2")
            Issue.record("an open quote parsed")
        } catch {
            #expect(!error.description.contains("hunter2"))
        }
    }

    /// A file that cannot be read is named with the option that asked for it.
    @Test func aMissingFileIsAClearError() {
        #expect(throws: ConfigurationError.self) { try EnvironmentFile.load(path: "/nonexistent/scorecast.env") }
        do {
            _ = try EnvironmentFile.load(path: "/nonexistent/scorecast.env")
        } catch {
            #expect(error.description.contains("--env-file /nonexistent/scorecast.env: cannot be read"), "\(error)")
        }
    }
}
