import Foundation

/// An Xcode `project.pbxproj`: every `MARKETING_VERSION` and `CURRENT_PROJECT_VERSION` build
/// setting in every build configuration, quoted or not.
///
/// All configurations must agree; when they do not, the error lists each one (by the name in
/// its `/* Debug */` comment and its line). A value that needs quotes in the OpenStep format
/// (anything beyond letters, digits, `_`, `.` and `/`) gets them on rewrite.
public struct XcodeProjectVersionFormat: TextualVersionFormat {
    /// `project.pbxproj`, as messages name the format.
    public var name: String { "project.pbxproj" }
    var versionKey: String { "MARKETING_VERSION" }
    var buildKey: String? { "CURRENT_PROJECT_VERSION" }

    /// Creates the format; it holds no state.
    public init() {}

    func locate(in text: VersionText) throws -> LocatedFields {
        let setting = try NSRegularExpression.builtIn(
            #"^\s*(MARKETING_VERSION|CURRENT_PROJECT_VERSION)\s*=\s*(?:"([^"]*)"|([^;\s"]*))\s*;"#
        )
        let objectHeader = try NSRegularExpression.builtIn(#"^\s*[0-9A-Fa-f]{24}\s*/\*\s*(.*?)\s*\*/\s*=\s*\{"#)
        var fields = LocatedFields()
        var configuration = "build settings"
        for index in text.lines.indices {
            if let header = text.matches(objectHeader, inLine: index).first, let nameRange = header[1] {
                configuration = text.text(nameRange)
            }
            for groups in text.matches(setting, inLine: index) {
                guard let keyRange = groups[1], let valueRange = groups[2] ?? groups[3] else { continue }
                let located = LocatedValue(
                    range: valueRange,
                    value: text.text(valueRange),
                    label: "\(configuration) (line \(index + 1))",
                    isQuoted: groups[2] != nil
                )
                if text.text(keyRange) == versionKey { fields.versions.append(located) } else { fields.builds.append(located) }
            }
        }
        return fields
    }

    func encode(_ value: String, replacing original: LocatedValue) -> String {
        // Unquoted OpenStep strings are safe with letters, digits, `_`, `.` and `/`; `-` and `+` need quotes.
        let plain = !value.isEmpty && value.allSatisfy {
            $0 == "_" || $0 == "." || $0 == "/" || ($0 != "-" && SemanticVersionParser.isIdentifierCharacter($0))
        }
        return original.isQuoted || plain ? value : "\"\(value)\""
    }
}
