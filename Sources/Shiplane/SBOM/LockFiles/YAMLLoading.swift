import Foundation
internal import Yams

/// YAML lock files read with every scalar as the text it is written as: Yams' `load` would turn
/// a version `1.10` into the number 1.1.
enum YAMLLoading {
    /// The document as `[String: Any]`, `[Any]` and `String` values; nil for an empty document.
    static func load(_ text: String) throws -> Any? {
        guard let node = try Yams.compose(yaml: text) else { return nil }
        return convert(node)
    }

    private static func convert(_ node: Node) -> Any {
        switch node {
        case .scalar(let scalar): return scalar.string
        case .sequence(let sequence): return sequence.map(convert)
        case .mapping(let mapping):
            var result: [String: Any] = [:]
            for (key, value) in mapping { result[key.scalar?.string ?? String(describing: convert(key))] = convert(value) }
            return result
        case .alias(let alias): return alias.anchor.rawValue
        }
    }
}
