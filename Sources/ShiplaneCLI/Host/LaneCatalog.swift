import Foundation
import Shiplane

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
                    defaultValue: $0.defaultValue, help: $0.abstract, values: $0.values,
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
