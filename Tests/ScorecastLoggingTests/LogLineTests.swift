import Foundation
import ScorecastLogging
import Testing

@Suite struct LogLineTests {
    @Test func jsonLinesEscapeAndKeepMetadata() throws {
        let line = LogLine.render(
            time: Date(timeIntervalSince1970: 0), level: .warning, label: "http",
            message: "quote \" and\nnewline", metadata: ["status": "503"], format: .json)
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        #expect(object?["message"] == "quote \" and\nnewline")
        #expect(object?["status"] == "503")
        #expect(object?["level"] == "warning")
    }

    @Test func textLinesQuoteValuesWithSpaces() {
        let line = LogLine.render(
            time: Date(timeIntervalSince1970: 0), level: .info, label: "db",
            message: "ready", metadata: ["reason": "two words"], format: .text)
        #expect(line.hasSuffix("INFO db: ready reason=\"two words\""))
    }

    @Test func levelsFilter() {
        let sink = MemorySink()
        let logger = Logger(label: "x", level: .warning, sink: sink)
        logger.info("dropped")
        logger.error("kept")
        #expect(sink.lines.count == 1)
    }
}
