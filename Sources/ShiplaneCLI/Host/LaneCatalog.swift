import Foundation
import Shiplane

/// What `shiplane lanes` shows of one lane: name, summary and options.
public struct LaneDescription: Codable, Equatable, Sendable {
    public struct OptionDescription: Codable, Equatable, Sendable {
        /// `--bump`, or the value name of a positional argument.
        public var name: String
        /// `option`, `flag` or `positional`.
        public var kind: String
        public var valueName: String?
        public var defaultValue: String?
        public var help: String?
        public var values: [String]?
        public var isOptional: Bool
    }

    public var name: String
    public var summary: String
    public var isPrivate: Bool
    public var options: [OptionDescription]
}

/// The lanes a lanes executable was built with, found by name.
struct LaneCatalog {
    let lanes: [any Lane.Type]

    func lane(named name: String) -> (any Lane.Type)? {
        lanes.first { $0.name == name }
    }

    var publicNames: [String] { lanes.filter { !$0.isPrivate }.map { $0.name } }

    static func describe(_ lane: any Lane.Type) -> LaneDescription {
        LaneDescription(
            name: lane.name, summary: lane.summary, isPrivate: lane.isPrivate,
            options: OptionInfo.options(of: lane).map {
                LaneDescription.OptionDescription(
                    name: $0.displayName, kind: $0.kind, valueName: $0.valueName,
                    defaultValue: $0.defaultValue, help: $0.abstract, values: $0.allValues,
                    isOptional: $0.isOptional
                )
            }
        )
    }

    /// The closest lane name to a mistyped one, when it is close enough to be a likely typo.
    func suggestion(for name: String) -> String? {
        let scored = publicNames.map { ($0, editDistance($0, name)) }.sorted { $0.1 < $1.1 }
        guard let best = scored.first, best.1 <= max(2, name.count / 3) else { return nil }
        return best.0
    }
}

/// The options of a lane as swift-argument-parser describes them (`_dumpHelp`).
struct OptionInfo: Decodable {
    struct Name: Decodable {
        var kind: String
        var name: String
    }

    var kind: String
    var names: [Name]?
    var preferredName: Name?
    var valueName: String?
    var defaultValue: String?
    var abstract: String?
    var allValues: [String]?
    var isOptional: Bool
    var shouldDisplay: Bool

    var displayName: String {
        guard let preferred = preferredName ?? names?.first else { return valueName ?? "" }
        return preferred.kind == "short" ? "-\(preferred.name)" : "--\(preferred.name)"
    }

    /// The long names (without dashes) this argument answers to.
    var longNames: [String] {
        (names ?? []).filter { $0.kind != "short" }.map(\.name)
    }

    private struct Dump: Decodable {
        struct Command: Decodable { var arguments: [OptionInfo]? }
        var command: Command
    }

    static func options(of lane: any Lane.Type) -> [OptionInfo] {
        let json = Data(lane._dumpHelp().utf8)
        guard let dump = try? JSONDecoder().decode(Dump.self, from: json) else { return [] }
        return (dump.command.arguments ?? []).filter { $0.shouldDisplay && $0.valueName != "help" }
    }
}

/// Levenshtein distance, for "did you mean".
func editDistance(_ left: String, _ right: String) -> Int {
    let a = Array(left), b = Array(right)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        previous = current
    }
    return previous[b.count]
}

/// Turns fastlane-style `key:value` arguments into `--key value` (or `--key` for a flag).
///
/// Only words whose key names an option of the lane are converted, so a positional value with a
/// colon (a URL) stays as it is. Keys may be written `build_number`, `buildNumber` or
/// `build-number`. A flag takes `true`/`yes`/`1` (set) or `false`/`no`/`0` (left unset).
func convertKeyValueArguments(_ arguments: [String], options: [OptionInfo]) -> [String] {
    var byName: [String: OptionInfo] = [:]
    for option in options {
        for name in option.longNames { byName[name] = option }
    }
    var result: [String] = []
    var passThrough = false
    for argument in arguments {
        if passThrough || argument.hasPrefix("-") {
            if argument == "--" { passThrough = true }
            result.append(argument)
            continue
        }
        guard let colon = argument.firstIndex(of: ":") else { result.append(argument); continue }
        let rawKey = String(argument[..<colon])
        let value = String(argument[argument.index(after: colon)...])
        let key = kebabCase(rawKey)
        guard let option = byName[key] else { result.append(argument); continue }
        if option.kind == "flag" {
            switch value.lowercased() {
            case "true", "yes", "1", "": result.append("--\(key)")
            case "false", "no", "0": continue
            default: result.append(argument)
            }
        } else {
            result.append("--\(key)")
            result.append(value)
        }
    }
    return result
}
