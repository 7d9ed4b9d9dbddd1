import Foundation

/// A Swift source file with a string constant holding the version.
///
/// A matching line is a `let` or `var` whose name ends in `version` (any case), with an optional
/// `: String` annotation and a plain string literal, after optional attributes and modifiers:
///
///     let version = "1.2.3"
///     public static let version = "1.2.3"
///     var appVersion: String = "1.2.3"
///
/// The pattern, per line: `^\s*(@\w+\s+)*(modifier\s+)*(let|var)\s+NAME\s*(:\s*String\s*)?=\s*"VALUE"`.
/// When a constant is named exactly `version`, only such constants count (so
/// `minimumOSVersion = "13.0"` beside it is ignored); otherwise every match counts and they
/// must agree. Lines inside block comments are not recognised as comments.
package struct SwiftConstantVersionFormat: TextualVersionFormat {
    /// `Swift source`, as messages name the format.
    package var name: String { "Swift source" }
    var versionKey: String { "version constant" }

    /// Creates the format; it holds no state.
    package init() {}

    private static let modifiers = "public|internal|package|private|fileprivate|open|static|class|final|nonisolated|nonisolated\\(unsafe\\)"

    func locate(in text: VersionText) throws -> LocatedFields {
        let regex = try NSRegularExpression.builtIn(
            #"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:"# + Self.modifiers + #")(?:\(set\))?\s+)*(?:let|var)\s+(\w+)\s*(?::\s*String\s*)?=\s*"([^"\\]*)""#
        )
        var found: [(name: String, value: LocatedValue)] = []
        for index in text.lines.indices {
            for groups in text.matches(regex, inLine: index) {
                guard let nameRange = groups[1], let valueRange = groups[2] else { continue }
                let name = text.text(nameRange)
                guard name.lowercased().hasSuffix("version") else { continue }
                found.append((name, LocatedValue(range: valueRange, value: text.text(valueRange), label: "\(name) (line \(index + 1))")))
            }
        }
        let exact = found.filter { $0.name.lowercased() == "version" }
        return LocatedFields(versions: (exact.isEmpty ? found : exact).map(\.value))
    }
}
