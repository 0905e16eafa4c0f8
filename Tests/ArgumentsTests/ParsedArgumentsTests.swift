import Arguments
import Testing

@Suite struct ParsedArgumentsTests {
    let options: [OptionSpec] = [
        .value("bundle-id", "ID", required: true, "bundle"),
        .value("team", "ID", repeatable: true, "team"),
        .flag("json", "json"),
    ]

    @Test func parsesValuesFlagsAndPositionals() throws {
        let parsed = try ParsedArguments(["--bundle-id=com.example.app", "--json", "--team", "A", "--team", "B", "extra"], options: options)
        #expect(parsed.value("bundle-id") == "com.example.app")
        #expect(parsed.flag("json"))
        #expect(parsed.values("team") == ["A", "B"])
        #expect(parsed.positionals == ["extra"])
        #expect(parsed.given.map(\.name) == ["bundle-id", "json", "team", "team"])
        #expect(parsed.given.map(\.value) == ["com.example.app", nil, "A", "B"])
    }

    @Test(arguments: [
        (["--bundle-id", "x", "--colour", "red"], "unknown option --colour"),
        (["--json"], "missing --bundle-id"),
        (["--bundle-id"], "--bundle-id needs a value"),
        (["--bundle-id", "a", "--bundle-id", "b"], "--bundle-id given more than once"),
        (["--bundle-id", "a", "--json=yes"], "--json takes no value"),
    ])
    func usageErrors(arguments: [String], message: String) {
        #expect {
            try ParsedArguments(arguments, options: options)
        } throws: { error in
            (error as? ArgumentError)?.message.contains(message) == true
        }
    }
}
