/// The columns of a result: names and types, shared by its rows.
public final class PostgresColumns: Sendable {
    /// Column names in result order.
    public let names: [String]
    /// Column types in result order.
    public let dataTypes: [PostgresDataType]
    private let indexByName: [String: Int]

    init(names: [String], dataTypes: [PostgresDataType]) {
        self.names = names
        self.dataTypes = dataTypes
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.indexByName = index
    }

    /// The position of the first column called `name`.
    public func index(of name: String) -> Int? { indexByName[name] }
}

/// The values of one result, copied out of libpq's result into one buffer that its rows
/// share, so rows are plain `Sendable` values independent of the C result's lifetime.
final class PostgresResultStorage: Sendable {
    let columns: PostgresColumns
    let bytes: [UInt8]
    /// Per cell (row-major): the start in `bytes` and the length, -1 for NULL.
    let cells: [(start: Int, length: Int)]

    init(columns: PostgresColumns, bytes: [UInt8], cells: [(start: Int, length: Int)]) {
        self.columns = columns
        self.bytes = bytes
        self.cells = cells
    }
}

/// One row of a query result.
///
/// ```swift
/// let id = try row.decode("id", as: Int64.self)
/// let name = try row.decode(1, as: String?.self)
/// ```
public struct PostgresRow: Sendable {
    private let storage: PostgresResultStorage
    private let row: Int

    init(storage: PostgresResultStorage, row: Int) {
        self.storage = storage
        self.row = row
    }

    /// The result's columns.
    public var columns: PostgresColumns { storage.columns }

    /// The number of columns.
    public var count: Int { storage.columns.names.count }

    /// The cell at `index`; a decoding error when there is no such column.
    public func cell(_ index: Int) throws(PostgresError) -> PostgresCell {
        guard storage.columns.names.indices.contains(index) else {
            throw PostgresError(.decodingFailed, "no column at index \(index); the row has \(count)")
        }
        let location = storage.cells[row * count + index]
        let bytes = location.length < 0 ? nil : storage.bytes[location.start..<(location.start + location.length)]
        return PostgresCell(
            bytes: bytes, dataType: storage.columns.dataTypes[index], columnName: storage.columns.names[index])
    }

    /// The cell of the first column called `column`; a decoding error when there is none.
    public func cell(_ column: String) throws(PostgresError) -> PostgresCell {
        guard let index = storage.columns.index(of: column) else {
            throw PostgresError(.decodingFailed, "no such column in the result", column: column)
        }
        return try cell(index)
    }

    /// Decodes the column called `column` as `type`.
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws(PostgresError) -> T {
        try T.decode(from: cell(column))
    }

    /// Decodes the column at `index` as `type`.
    public func decode<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws(PostgresError) -> T {
        try T.decode(from: cell(index))
    }

    /// Decodes a `json`/`jsonb` column into a `Decodable` type.
    public func decodeJSON<T: Decodable>(_ column: String, as type: T.Type = T.self) throws(PostgresError) -> T {
        do {
            return try decode(column, as: PostgresJSON.self).decode(T.self)
        } catch {
            var error = error
            error.column = column
            throw error
        }
    }

    /// Whether the column called `column` is NULL.
    public func isNull(_ column: String) throws(PostgresError) -> Bool { try cell(column).bytes == nil }
}
