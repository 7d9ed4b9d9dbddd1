import Foundation

/// A CocoaPods `.podspec`: `spec.version = "X"` or `s.version = 'X'`, with any receiver name.
///
/// Quotes are kept as they were. The format has no build number.
package struct PodspecVersionFormat: TextualVersionFormat {
    /// `podspec`, as messages name the format.
    package var name: String { "podspec" }
    var versionKey: String { "version" }

    /// Creates the format; it holds no state.
    package init() {}

    func locate(in text: VersionText) throws -> LocatedFields {
        let regex = try NSRegularExpression.builtIn(#"^\s*([A-Za-z_]\w*)\.version\s*=\s*(["'])(.*?)\2"#)
        var fields = LocatedFields()
        for index in text.lines.indices {
            for groups in text.matches(regex, inLine: index) {
                guard let valueRange = groups[3] else { continue }
                fields.versions.append(LocatedValue(range: valueRange, value: text.text(valueRange), label: "line \(index + 1)"))
            }
        }
        return fields
    }
}
