import Foundation

/// A Flutter or Dart `pubspec.yaml`: the top-level `version: 1.2.3+45`, the version before the
/// `+` and the build number after it (Flutter's build name and build number, which its iOS and
/// Android projects read as `$(FLUTTER_BUILD_NAME)` / `$(FLUTTER_BUILD_NUMBER)` and
/// `flutter.versionName` / `flutter.versionCode`). Quotes and comments are kept.
package struct FlutterPubspecVersionFormat: TextualVersionFormat {
    /// `pubspec.yaml`, as messages name the format.
    package var name: String { "pubspec.yaml" }
    var versionKey: String { "version" }
    var buildKey: String? { "version build number (after +)" }

    /// The variable through which Flutter's native projects read the version.
    static let nameVariable = "FLUTTER_BUILD_NAME"
    /// The variable through which Flutter's native projects read the build number.
    static let numberVariable = "FLUTTER_BUILD_NUMBER"

    /// Creates the format; it holds no state.
    package init() {}

    func checkBuild(_ build: String) throws {
        // The build number becomes Android's versionCode.
        try AndroidVersionCode.check(build, format: name)
    }

    func locate(in text: VersionText) throws -> LocatedFields {
        let regex = try NSRegularExpression.builtIn(#"^version:[ \t]*(["']?)([^\s"'#+]+)(?:\+([^\s"'#]+))?\1[ \t]*(?:#.*)?$"#)
        var fields = LocatedFields()
        for index in text.lines.indices {
            guard let groups = text.matches(regex, inLine: index).first, let version = groups[2] else { continue }
            fields.versions.append(LocatedValue(range: version, value: text.text(version), label: "version (line \(index + 1))", key: Self.nameVariable))
            if let build = groups[3] {
                let value = text.text(build)
                // Flutter passes it to Android as versionCode and to iOS as CFBundleVersion:
                // anything but digits fails the build, so it is refused here, not carried on.
                guard value.allSatisfy(\.isASCIIDigit) else {
                    throw VersionFileError(
                        .invalidValue,
                        "The build number in pubspec.yaml, '\(quotedFromFile(value))' (after the + of `version: \(text.text(version))+\(quotedFromFile(value))`), is not a whole number",
                        details: [("where", "line \(index + 1)")],
                        suggestion: "Flutter's build number becomes Android's versionCode and iOS's CFBundleVersion: write digits only, e.g. version: \(text.text(version))+\(value.filter(\.isASCIIDigit).isEmpty ? "1" : value.filter(\.isASCIIDigit))"
                    )
                }
                fields.builds.append(LocatedValue(range: build, value: value, label: "build number (line \(index + 1))", key: Self.numberVariable))
            }
        }
        fields.absenceReason = "there is no top-level `version:`"
        return fields
    }
}
