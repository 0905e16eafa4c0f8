@testable import Postgres
import Testing

@Suite struct PostgresArrayLiteralTests {
    private func parse(_ text: String) throws -> [String?] {
        try PostgresArrayLiteral.parse(Array(text.utf8)).map { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    @Test func parsesPostgresOutput() throws {
        #expect(try parse("{}") == [])
        #expect(try parse("{1,2,3}") == ["1", "2", "3"])
        #expect(try parse(#"{a,"b c",NULL,"NULL","",null}"#) == ["a", "b c", nil, "NULL", "", nil])
        #expect(try parse(#"{"say \"hi\"","back\\slash","{}",","}"#) == [#"say "hi""#, #"back\slash"#, "{}", ","])
        #expect(try parse("[0:1]={7,8}") == ["7", "8"])
        #expect(try parse(#"{"2024-01-02 03:04:05.5+00"}"#) == ["2024-01-02 03:04:05.5+00"])
        #expect(try parse("{héllo,日本}") == ["héllo", "日本"])
    }

    @Test func rejectsWhatItCannotRead() {
        for bad in ["", "1,2", "{1,2", "{{1,2},{3,4}}", #"{"open}"#, "{1,,2}", "{a\"b}", "{1,}"] {
            #expect(throws: PostgresArrayLiteral.ParseError.self, "\(bad)") { try parse(bad) }
        }
    }

    @Test func encodingThenParsingGivesTheElementsBack() throws {
        let samples: [[String?]] = [
            [], [""], [nil], ["NULL"], ["a,b", "{", "}", "\"", "\\", " lead", "trail ", "tab\there"],
            ["日本語", "emoji 🏒", "new\nline"], [nil, "x", nil],
        ]
        for sample in samples {
            let encoded = PostgresArrayLiteral.encode(sample.map { $0.map { Array($0.utf8) } })
            #expect(try parse(String(decoding: encoded, as: UTF8.self)) == sample)
        }
    }
}
