import Shiplane

/// Lanes that cannot all be reached from the command line: two with one name, or one whose name
/// a built-in command owns. Reported with each lane's `Lanes/File.swift:LINE`, as a compile error.
struct LaneDeclarationError: ReportableError {
    var problems: [String]

    /// The words the `shiplane` command itself answers before it looks for a lane.
    /// The words the command line takes as Shiplane's own commands: a lane cannot be named so.
    static var builtInCommands: Set<String> { Set(ShiplaneCommand.commandNames) }

    /// The built-in command a mistyped word most likely meant (`chnagelog` → `changelog`).
    static func closeBuiltInCommand(to word: String) -> String? {
        ShiplaneCommand.closeCommand(to: word)
    }

    var message: String {
        problems.count == 1 ? problems[0] : "\(problems.count) lane declarations cannot be used:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
    }

    var suggestion: String? { "give each lane its own name with `static let name = \"…\"`" }
    var category: ErrorCategory { .compile }

    /// - Throws: `LaneDeclarationError` listing every clash.
    static func check(_ lanes: [any Lane.Type], locations: [String]) throws {
        func place(_ index: Int) -> String { index < locations.count ? locations[index] : "Lanes/" }
        var problems: [String] = []
        var seen: [String: Int] = [:]
        for (index, lane) in lanes.enumerated() {
            if let first = seen[lane.name] {
                problems.append("\(place(index)): lane `\(lane)` has the command-line name `\(lane.name)`, as has `\(lanes[first])` at \(place(first))")
            } else {
                seen[lane.name] = index
            }
            if builtInCommands.contains(lane.name), !lane.isPrivate {
                problems.append("\(place(index)): lane `\(lane)` is named `\(lane.name)`, which is Shiplane's own command: `shiplane \(lane.name)` would never run it")
            }
        }
        if !problems.isEmpty { throw LaneDeclarationError(problems: problems) }
    }
}
