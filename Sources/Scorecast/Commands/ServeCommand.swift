/// `scorecast serve`, `migrate` and `apns-sim`: the long-running and set-up commands.
enum ServeCommand {
    static let all: [CommandDefinition] = []
}
