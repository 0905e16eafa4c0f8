import Foundation
import Postgres
import TestSupport
import Testing

/// Every supported type goes to a real server and comes back.
@Suite struct TypeRoundTripTests {
    private func roundTrip<T: PostgresEncodable & PostgresDecodable>(
        _ value: T, through pool: PostgresPool, as type: String
    ) async throws -> T {
        let rows = try await pool.query("SELECT \(value)::\(unsafeSQL: type) AS v")
        return try rows[0].decode("v", as: T.self)
    }

    @Test func scalarsRoundTrip() async throws {
        let pool = try await TestDatabase.shared().makePool()
        for text in ["", "plain", "héllo wörld", "日本語 🏒", "'; DROP TABLE x; --", "line\nbreak\ttab", "back\\slash \"quote\""] {
            #expect(try await roundTrip(text, through: pool, as: "text") == text)
        }
        for number in [Int64.min, -1, 0, 1, Int64.max] {
            #expect(try await roundTrip(number, through: pool, as: "int8") == number)
        }
        #expect(try await roundTrip(Int.max, through: pool, as: "int8") == Int.max)
        for number in [Int32.min, 0, Int32.max] {
            #expect(try await roundTrip(number, through: pool, as: "int4") == number)
        }
        #expect(try await roundTrip(Int16.min, through: pool, as: "int2") == Int16.min)
        #expect(try await roundTrip(true, through: pool, as: "bool") == true)
        #expect(try await roundTrip(false, through: pool, as: "bool") == false)
        for double in [0.1, -0.0, 1e-300, .leastNonzeroMagnitude, Double.greatestFiniteMagnitude, .pi, .infinity, -.infinity] {
            #expect(try await roundTrip(double, through: pool, as: "float8") == double)
        }
        #expect(try await roundTrip(Double.nan, through: pool, as: "float8").isNaN)
        await pool.close()
    }

    @Test func datesKeepMicroseconds() async throws {
        let pool = try await TestDatabase.shared().makePool()
        for seconds in [0, 1_700_000_000.123456, -1_000_000.000001, 4_102_444_800.999999, 1.5] {
            let date = Date(timeIntervalSince1970: seconds)
            let back = try await roundTrip(date, through: pool, as: "timestamptz")
            #expect(abs(back.timeIntervalSince1970 - seconds) < 1e-6, "\(seconds)")
        }
        // The server reads the value as the instant meant, whatever its own TimeZone.
        let epoch = try await pool.query("SELECT extract(epoch FROM \(Date(timeIntervalSince1970: 1_700_000_000.25)))::float8 AS e")
        #expect(try epoch[0].decode("e", as: Double.self) == 1_700_000_000.25)
        await pool.close()
    }

    @Test func bytesKeepZerosAndEveryValue() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let bytes: [UInt8] = [0, 0, 1, 0, 127, 128, 255, 0] + Array(0...255)
        #expect(try await roundTrip(bytes, through: pool, as: "bytea") == bytes)
        #expect(try await roundTrip(Data(bytes), through: pool, as: "bytea") == Data(bytes))
        #expect(try await roundTrip([UInt8](), through: pool, as: "bytea") == [])
        let length = try await pool.query("SELECT octet_length(\(bytes)) AS n")
        #expect(try length[0].decode("n", as: Int.self) == bytes.count)
        await pool.close()
    }

    @Test func jsonAsBytesOrDecodable() async throws {
        struct Score: Codable, Equatable {
            let home: Int
            let away: Int
            let note: String?
        }
        let pool = try await TestDatabase.shared().makePool()
        let score = Score(home: 3, away: 2, note: "OT — 日本")
        let rows = try await pool.query("""
            SELECT \(try PostgresJSON(encoding: score)) AS doc,
                   \(PostgresJSON(#"{"a": [1, 2]}"#))::json AS raw,
                   (\(try PostgresJSON(encoding: score)) ->> 'home')::int AS home
            """)
        #expect(try rows[0].decodeJSON("doc", as: Score.self) == score)
        #expect(try rows[0].decode("raw", as: PostgresJSON.self).text == #"{"a": [1, 2]}"#)
        #expect(try rows[0].decode("home", as: Int.self) == 3)
        await #expect(throws: PostgresError.self) { try await pool.query("SELECT \(PostgresJSON("{not json"))") }
        await pool.close()
    }

    @Test func nullsDecodeAsNilAndNamedErrorsOtherwise() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let none: String? = nil
        let rows = try await pool.query("""
            SELECT \(none) AS s, \(Int64?.none) AS i, \(Date?.none) AS d, \(Bool?.none) AS b,
                   \(Double?.none) AS f, \([UInt8]?.none) AS y, \(PostgresJSON?.none) AS j, \([String]?.none) AS a
            """)
        let row = rows[0]
        #expect(try row.decode("s", as: String?.self) == nil)
        #expect(try row.decode("i", as: Int64?.self) == nil)
        #expect(try row.decode("d", as: Date?.self) == nil)
        #expect(try row.decode("b", as: Bool?.self) == nil)
        #expect(try row.decode("f", as: Double?.self) == nil)
        #expect(try row.decode("y", as: [UInt8]?.self) == nil)
        #expect(try row.decode("j", as: PostgresJSON?.self) == nil)
        #expect(try row.decode("a", as: [String]?.self) == nil)
        #expect(try row.isNull("s"))
        do {
            _ = try row.decode("i", as: Int64.self)
            Issue.record("NULL decoded into a non-optional")
        } catch {
            #expect(error.code == .decodingFailed)
            #expect(error.column == "i")
            #expect(error.description.contains("\"i\""))
        }
        let present = try await pool.query("SELECT \(Optional("x")) AS s, \(Optional(Int64(5))) AS i")
        #expect(try present[0].decode("s", as: String?.self) == "x")
        #expect(try present[0].decode(1, as: Int64?.self) == 5)
        await pool.close()
    }

    @Test func arraysRoundTripForUnnestBatches() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let texts = ["a", "", "NULL", "b,c", "{x}", "say \"hi\"", "back\\slash", "日本", " padded "]
        #expect(try await roundTrip(texts, through: pool, as: "text[]") == texts)
        #expect(try await roundTrip([Int64.min, 0, Int64.max], through: pool, as: "int8[]") == [Int64.min, 0, Int64.max])
        #expect(try await roundTrip([1, 2, 3], through: pool, as: "int8[]") == [1, 2, 3])
        #expect(try await roundTrip([0.5, -1e10, .infinity], through: pool, as: "float8[]") == [0.5, -1e10, .infinity])
        #expect(try await roundTrip([true, false], through: pool, as: "bool[]") == [true, false])
        #expect(try await roundTrip([String](), through: pool, as: "text[]") == [])
        #expect(try await roundTrip([Optional("x"), nil, Optional("NULL")], through: pool, as: "text[]") == ["x", nil, "NULL"])
        let dates = [Date(timeIntervalSince1970: 1_700_000_000.000001), Date(timeIntervalSince1970: 0.5)]
        let back = try await roundTrip(dates, through: pool, as: "timestamptz[]")
        #expect(zip(back, dates).allSatisfy { abs($0.timeIntervalSince1970 - $1.timeIntervalSince1970) < 1e-6 })

        // The batching idiom: one statement, many rows.
        try await pool.execute("CREATE TABLE scores (id int8 PRIMARY KEY, team text NOT NULL, at timestamptz)")
        let inserted = try await pool.execute("""
            INSERT INTO scores (id, team, at)
            SELECT * FROM unnest(\([Int64(1), 2, 3]), \(["Oilers", "Flames", "O'Brien \"Q\""]), \(dates + [dates[0]]))
            """)
        #expect(inserted == 3)
        let rows = try await pool.query("SELECT team FROM scores WHERE id = ANY(\([Int64(1), 3])) ORDER BY id")
        #expect(try rows.map { try $0.decode("team", as: String.self) } == ["Oilers", "O'Brien \"Q\""])
        await pool.close()
    }

    @Test func serverTypesDecodeIntoSwiftTypes() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let rows = try await pool.query("""
            SELECT 7::int2 AS small, 8::int4 AS medium, 12.50::numeric AS price, 1.5::float4 AS real,
                   'NaN'::numeric AS nan, now() AS now, '2024-02-29'::date AS day,
                   '2024-02-29 12:00:00'::timestamp AS naive, 'infinity'::timestamptz AS forever,
                   ARRAY[1,NULL,3]::int4[] AS holes, '{"k": 1}'::jsonb AS doc, 42::int8 AS big
            """)
        let row = rows[0]
        #expect(try row.decode("small", as: Int.self) == 7)
        #expect(try row.decode("medium", as: Int32.self) == 8)
        #expect(try row.decode("price", as: Double.self) == 12.5)
        #expect(try row.decode("real", as: Double.self) == 1.5)
        #expect(try row.decode("nan", as: Double.self).isNaN)
        #expect(abs(try row.decode("now", as: Date.self).timeIntervalSinceNow) < 60)
        #expect(try row.decode("day", as: Date.self) == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(try row.decode("naive", as: Date.self) == Date(timeIntervalSince1970: 1_709_208_000))
        #expect(try row.decode("forever", as: Date.self) == .distantFuture)
        #expect(try row.decode("holes", as: [Int32?].self) == [1, nil, 3])
        #expect(try row.decode("doc", as: String.self) == #"{"k": 1}"#)
        #expect(try row.decode("big", as: String.self) == "42")
        #expect(row.columns.names.count == 12)

        let wrongTypes: [(String, (PostgresRow) throws -> Void)] = [
            ("doc", { _ = try $0.decode("doc", as: Int.self) }),
            ("price", { _ = try $0.decode("price", as: Int.self) }),
            ("holes", { _ = try $0.decode("holes", as: [Int32].self) }),
            ("day", { _ = try $0.decode("day", as: Bool.self) }),
            ("small", { _ = try $0.decode("small", as: [UInt8].self) }),
        ]
        for (column, decode) in wrongTypes {
            do {
                try decode(row)
                Issue.record("\(column) decoded into the wrong type")
            } catch let error as PostgresError {
                #expect(error.code == .decodingFailed)
                #expect(error.column == column)
            }
        }
        let tooBig = try await pool.query("SELECT 70000::int4 AS n")
        #expect(throws: PostgresError.self) { try tooBig[0].decode("n", as: Int16.self) }
        #expect(throws: PostgresError.self) { try row.decode("missing", as: String.self) }
        #expect(throws: PostgresError.self) { try row.decode(99, as: String.self) }
        await pool.close()
    }
}
