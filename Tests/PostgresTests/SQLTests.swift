import Foundation
@testable import Postgres
import Testing

@Suite struct SQLTests {
    private func text(_ value: PostgresBindValue) -> String? {
        value.bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func interpolatedValuesBecomeNumberedParameters() {
        let league = "NHL"
        let seq: Int64 = 42
        let sql: SQL = "SELECT id FROM games WHERE league = \(league) AND seq > \(seq) AND live = \(true)"
        #expect(sql.text == "SELECT id FROM games WHERE league = $1 AND seq > $2 AND live = $3")
        #expect(sql.binds.map(\.dataType) == [.text, .int8, .bool])
        #expect(sql.binds.map(text) == ["NHL", "42", "t"])
        #expect(sql.encodingError == nil)
    }

    @Test func descriptionShowsPlaceholdersNeverValues() {
        let secret = "hunter2-api-key"
        let sql: SQL = "UPDATE apps SET key = \(secret)"
        #expect(sql.description == "UPDATE apps SET key = $1")
        #expect(!"\(sql)".contains(secret))
    }

    @Test func hostileTextStaysAValue() {
        let input = "'; DROP TABLE games; --"
        let sql: SQL = "SELECT \(input)"
        #expect(sql.text == "SELECT $1")
        #expect(text(sql.binds[0]) == input)
    }

    @Test func unsafeSQLAndIdentifiersAreSpliced() {
        let table = "my \"odd\" table"
        let sql: SQL = "SELECT * FROM \(identifier: table) ORDER BY \(unsafeSQL: "id DESC") LIMIT \(10)"
        #expect(sql.text == #"SELECT * FROM "my ""odd"" table" ORDER BY id DESC LIMIT $1"#)
        #expect(SQL.unsafeSQL("SELECT 1").text == "SELECT 1")
    }

    @Test func fragmentsAreRenumberedWhenJoined() {
        var sql: SQL = "SELECT * FROM t WHERE a = \(1)"
        sql.append(" AND b = \("x")")
        let tail: SQL = " AND c = \(2.5)"
        let joined: SQL = "\(sql)\(tail) AND d = \(Int32(7))"
        #expect(joined.text == "SELECT * FROM t WHERE a = $1 AND b = $2 AND c = $3 AND d = $4")
        #expect(joined.binds.map(text) == ["1", "x", "2.5", "7"])
        #expect((SQL("SELECT \(1)") + SQL(" , \(2)")).text == "SELECT $1 , $2")
    }

    @Test func optionalsBindTypedNulls() {
        let missing: Int64? = nil
        let present: String? = "x"
        let sql: SQL = "SELECT \(missing), \(present)"
        #expect(sql.binds[0] == .null(.int8))
        #expect(text(sql.binds[1]) == "x")
    }

    @Test func bytesBindInBinaryWithZerosIntact() {
        let bytes: [UInt8] = [0, 1, 0, 255]
        let sql: SQL = "SELECT \(bytes), \(Data(bytes))"
        #expect(sql.binds[0] == PostgresBindValue(dataType: .bytea, format: .binary, bytes: bytes))
        #expect(sql.binds[1] == sql.binds[0])
    }

    @Test func nulBytesInTextAreReportedNotTruncated() {
        let sql: SQL = "SELECT \("a\u{0}b")"
        #expect(sql.encodingError?.code == .encodingFailed)
        let identifier: SQL = "SELECT 1 FROM \(identifier: "a\u{0}")"
        #expect(identifier.encodingError?.code == .encodingFailed)
    }

    @Test func doublesUseExactTextAndPostgresSpecialValues() {
        let values: [Double] = [0.1, -0.0, 1e-300, .greatestFiniteMagnitude, .infinity, -.infinity, .nan]
        let texts = values.map { try? text($0.postgresBindValue()) }
        #expect(texts == ["0.1", "-0.0", "1e-300", "1.7976931348623157e+308", "Infinity", "-Infinity", "NaN"])
    }

    @Test func arraysBindAsTypedArrayLiterals() throws {
        let names = ["a", "b,c", "say \"hi\"", "back\\slash", "NULL", "", "{}"]
        let value = try names.postgresBindValue()
        #expect(value.dataType == .textArray)
        #expect(text(value) == #"{"a","b,c","say \"hi\"","back\\slash","NULL","","{}"}"#)
        #expect(text(try [Int64(1), -2].postgresBindValue()) == #"{"1","-2"}"#)
        #expect(try [Int]().postgresBindValue() == PostgresBindValue(dataType: .int8Array, format: .text, bytes: Array("{}".utf8)))
        #expect(text(try [Optional("x"), nil].postgresBindValue()) == #"{"x",NULL}"#)
        #expect(try [true].postgresBindValue().dataType == .boolArray)
        #expect(try [1.5].postgresBindValue().dataType == .float8Array)
        #expect(try [Date()].postgresBindValue().dataType == .timestamptzArray)
    }

    @Test func rawRepresentableTypesBindTheirRawValue() {
        enum Status: String, PostgresEncodable, PostgresDecodable { case live, final }
        let sql: SQL = "SELECT \(Status.final)"
        #expect(text(sql.binds[0]) == "final")
        #expect(sql.binds[0].dataType == .text)
    }

    @Test func jsonBindsAsJSONB() throws {
        struct Score: Codable { let home: Int }
        let json = try PostgresJSON(encoding: Score(home: 2))
        let sql: SQL = "SELECT \(json)"
        #expect(sql.binds[0].dataType == .jsonb)
        #expect(text(sql.binds[0]) == #"{"home":2}"#)
    }
}
