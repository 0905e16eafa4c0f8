/// A server data type, identified by its OID (the values of `pg_type.oid` for built-in types).
public struct PostgresDataType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's OID.
    public var rawValue: UInt32

    /// Wraps an OID.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// No declared type: the server infers it from the statement.
    public static let unspecified = PostgresDataType(rawValue: 0)
    /// `bool`
    public static let bool = PostgresDataType(rawValue: 16)
    /// `bytea`
    public static let bytea = PostgresDataType(rawValue: 17)
    /// `name`
    public static let name = PostgresDataType(rawValue: 19)
    /// `int8` (`bigint`)
    public static let int8 = PostgresDataType(rawValue: 20)
    /// `int2` (`smallint`)
    public static let int2 = PostgresDataType(rawValue: 21)
    /// `int4` (`integer`)
    public static let int4 = PostgresDataType(rawValue: 23)
    /// `text`
    public static let text = PostgresDataType(rawValue: 25)
    /// `oid`
    public static let oid = PostgresDataType(rawValue: 26)
    /// `json`
    public static let json = PostgresDataType(rawValue: 114)
    /// `float4` (`real`)
    public static let float4 = PostgresDataType(rawValue: 700)
    /// `float8` (`double precision`)
    public static let float8 = PostgresDataType(rawValue: 701)
    /// `unknown` (untyped literals)
    public static let unknown = PostgresDataType(rawValue: 705)
    /// `bpchar` (`char(n)`)
    public static let bpchar = PostgresDataType(rawValue: 1042)
    /// `varchar`
    public static let varchar = PostgresDataType(rawValue: 1043)
    /// `date`
    public static let date = PostgresDataType(rawValue: 1082)
    /// `timestamp` (without time zone)
    public static let timestamp = PostgresDataType(rawValue: 1114)
    /// `timestamptz`
    public static let timestamptz = PostgresDataType(rawValue: 1184)
    /// `numeric`
    public static let numeric = PostgresDataType(rawValue: 1700)
    /// `uuid`
    public static let uuid = PostgresDataType(rawValue: 2950)
    /// `jsonb`
    public static let jsonb = PostgresDataType(rawValue: 3802)

    /// `bool[]`
    public static let boolArray = PostgresDataType(rawValue: 1000)
    /// `bytea[]`
    public static let byteaArray = PostgresDataType(rawValue: 1001)
    /// `int2[]`
    public static let int2Array = PostgresDataType(rawValue: 1005)
    /// `int4[]`
    public static let int4Array = PostgresDataType(rawValue: 1007)
    /// `text[]`
    public static let textArray = PostgresDataType(rawValue: 1009)
    /// `varchar[]`
    public static let varcharArray = PostgresDataType(rawValue: 1015)
    /// `int8[]`
    public static let int8Array = PostgresDataType(rawValue: 1016)
    /// `float4[]`
    public static let float4Array = PostgresDataType(rawValue: 1021)
    /// `float8[]`
    public static let float8Array = PostgresDataType(rawValue: 1022)
    /// `timestamp[]`
    public static let timestampArray = PostgresDataType(rawValue: 1115)
    /// `timestamptz[]`
    public static let timestamptzArray = PostgresDataType(rawValue: 1185)
    /// `numeric[]`
    public static let numericArray = PostgresDataType(rawValue: 1231)
    /// `uuid[]`
    public static let uuidArray = PostgresDataType(rawValue: 2951)
    /// `jsonb[]`
    public static let jsonbArray = PostgresDataType(rawValue: 3807)

    private static let arrayElements: [PostgresDataType: PostgresDataType] = [
        .boolArray: .bool, .byteaArray: .bytea, .int2Array: .int2, .int4Array: .int4, .textArray: .text,
        .varcharArray: .varchar, .int8Array: .int8, .float4Array: .float4, .float8Array: .float8,
        .timestampArray: .timestamp, .timestamptzArray: .timestamptz, .numericArray: .numeric,
        .uuidArray: .uuid, .jsonbArray: .jsonb,
    ]

    private static let names: [PostgresDataType: String] = [
        .bool: "bool", .bytea: "bytea", .name: "name", .int8: "int8", .int2: "int2", .int4: "int4",
        .text: "text", .oid: "oid", .json: "json", .float4: "float4", .float8: "float8",
        .unknown: "unknown", .bpchar: "bpchar", .varchar: "varchar", .date: "date",
        .timestamp: "timestamp", .timestamptz: "timestamptz", .numeric: "numeric", .uuid: "uuid",
        .jsonb: "jsonb",
    ]

    /// For a built-in array type, the type of its elements; `nil` otherwise.
    public var arrayElementType: PostgresDataType? { Self.arrayElements[self] }

    /// The type's name for built-in types (`int8`, `text[]`…), `oid <n>` otherwise.
    public var description: String {
        if let name = Self.names[self] { return name }
        if let element = arrayElementType, let name = Self.names[element] { return name + "[]" }
        return "oid \(rawValue)"
    }

    /// Whether values of this type are integers (`int2`, `int4`, `int8`, `oid`).
    var isInteger: Bool { self == .int2 || self == .int4 || self == .int8 || self == .oid }
}
