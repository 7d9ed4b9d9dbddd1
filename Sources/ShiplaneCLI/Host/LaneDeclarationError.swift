import Shiplane

/// Lanes that cannot all be reached from the command line: two with one name, or one whose name
/// a built-in command owns. Reported with each lane's `Lanes/File.swift:LINE`, as a compile error.
struct LaneDeclarationError: ReportableError {
    var problems: [String]

    /// The words the `shiplane` command itself answers before it looks for a lane.
    static let builtInCommands: Set<String> = ["help", "lanes", "actions", "action", "init", "version", "bump", "changelog"]

    /// The built-in command a mistyped word most likely meant (`chnagelog` → `changelog`).
    static func closeBuiltInCommand(to word: String) -> String? {
        let scored = builtInCommands.map { ($0, editDistance($0, word)) }.sorted { ($0.1, $0.0) < ($1.1, $1.0) }
        guard let best = scored.first, best.1 > 0, best.1 <= max(1, min(2, word.count / 3)) else { return nil }
        return best.0
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
