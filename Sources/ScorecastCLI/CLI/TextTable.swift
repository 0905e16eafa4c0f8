/// A plain text table for human output: a header row and aligned columns.
package struct TextTable: Sendable {
    private let headers: [String]
    private var rows: [[String]] = []

    /// Creates an empty table with these column headers.
    package init(_ headers: [String]) { self.headers = headers }

    /// Adds a row; missing cells are blank, extra cells are dropped.
    package mutating func add(_ cells: [String]) {
        rows.append((0..<headers.count).map { $0 < cells.count ? cells[$0] : "" })
    }

    /// The table as lines joined by newlines (with a trailing newline).
    package func render() -> String {
        let widths = headers.indices.map { column in
            ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == cells.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}

import Foundation
