import Foundation

/// An Xcode `.xcconfig` file: `MARKETING_VERSION = X` and `CURRENT_PROJECT_VERSION = N` lines.
///
/// Conditional settings (`MARKETING_VERSION[sdk=iphoneos*] = …`) are not recognised. A trailing
/// `//` comment and optional double quotes around the value are kept. `$(…)` values are
/// delegated and never rewritten.
public struct XcconfigVersionFormat: TextualVersionFormat {
    /// `xcconfig`, as messages name the format.
    public var name: String { "xcconfig" }
    var versionKey: String { "MARKETING_VERSION" }
    var buildKey: String? { "CURRENT_PROJECT_VERSION" }

    /// Creates the format; it holds no state.
    public init() {}

    func locate(in text: VersionText) throws -> LocatedFields {
        let regex = try NSRegularExpression.builtIn(
            #"^\s*(MARKETING_VERSION|CURRENT_PROJECT_VERSION)\s*=\s*(?:"([^"]*)"|(.*?))\s*(?://.*)?$"#
        )
        var fields = LocatedFields()
        for index in text.lines.indices {
            for groups in text.matches(regex, inLine: index) {
                guard let keyRange = groups[1], let valueRange = groups[2] ?? groups[3] else { continue }
                let located = LocatedValue(range: valueRange, value: text.text(valueRange), label: "line \(index + 1)", isQuoted: groups[2] != nil)
                if text.text(keyRange) == versionKey { fields.versions.append(located) } else { fields.builds.append(located) }
            }
        }
        return fields
    }
}
