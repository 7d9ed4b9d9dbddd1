import Foundation
import Shiplane

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
    /// How the shell completes the value: a list for a `CaseIterable` enum, a type's
    /// `defaultCompletionKind` (`VersionBump`) or `@Option(completion: .list(...))`.
    var completionKind: CompletionKind?
    var isOptional: Bool
    var shouldDisplay: Bool

    /// swift-argument-parser's `CompletionKindV0` as `_dumpHelp` writes it; only the list is read.
    struct CompletionKind: Decodable {
        struct List: Decodable { var values: [String] }
        var list: List?
    }

    /// The values an option takes, for completion: its type's cases, else its completion list.
    var values: [String]? {
        if let allValues, !allValues.isEmpty { return allValues }
        if let listed = completionKind?.list?.values, !listed.isEmpty { return listed }
        return nil
    }

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
