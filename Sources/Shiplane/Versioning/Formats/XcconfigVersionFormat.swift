import Foundation

/// An Xcode `.xcconfig` file: `MARKETING_VERSION = X` and `CURRENT_PROJECT_VERSION = N` lines,
/// and the settings they refer to (`MARKETING_VERSION = $(APP_VERSION)` with `APP_VERSION = 1.2`).
///
/// A setting for some configurations or SDKs (`MARKETING_VERSION[config=Release] = …`,
/// `[sdk=iphoneos*]`) is one more copy, named with its condition: copies must agree, and a bump
/// rewrites each. `#include` lines are followed by the search (`XcconfigIncludes`), not here.
/// A trailing `//` comment and optional double quotes around the value are kept. `$(…)` and
/// `${…}` values are delegated and never rewritten. Versions are Apple marketing versions
/// (`1.0` stays `1.x`).
package struct XcconfigVersionFormat: TextualVersionFormat {
    /// `xcconfig`, as messages name the format.
    package var name: String { "xcconfig" }
    var versionKey: String { "MARKETING_VERSION" }
    var buildKey: String? { "CURRENT_PROJECT_VERSION" }
    /// Apple's.
    package var buildSeries: Set<BuildSeries> { [.apple] }
    var versionShape: VersionShape { .apple }

    /// The settings that hold the version: `MARKETING_VERSION` and those it refers to.
    package let versionVariables: [String]
    /// The settings that hold the build number: `CURRENT_PROJECT_VERSION` and those it refers to.
    package let buildVariables: [String]

    /// Creates the format reading `MARKETING_VERSION`, `CURRENT_PROJECT_VERSION` and the
    /// settings named (that one of those refers to elsewhere).
    package init(versionVariables: [String] = [], buildVariables: [String] = []) {
        self.versionVariables = ["MARKETING_VERSION"] + versionVariables.filter { $0 != "MARKETING_VERSION" }
        self.buildVariables = ["CURRENT_PROJECT_VERSION"] + buildVariables.filter { $0 != "CURRENT_PROJECT_VERSION" }
    }

    func locate(in text: VersionText) throws -> LocatedFields {
        let regex = try NSRegularExpression.builtIn(
            #"^\s*([A-Za-z_][A-Za-z0-9_]*)((?:\[[^\]=]+=[^\]]*\])*)\s*=\s*(?:"([^"]*)"|(.*?))\s*(?://.*)?$"#
        )
        var fields = LocatedFields()
        for index in text.lines.indices {
            for groups in text.matches(regex, inLine: index) {
                guard let keyRange = groups[1], let valueRange = groups[3] ?? groups[4] else { continue }
                let key = text.text(keyRange)
                let isVersion = versionVariables.contains(key)
                guard isVersion || buildVariables.contains(key) else { continue }
                let condition = groups[2].map { text.text($0) } ?? ""
                let located = LocatedValue(
                    range: valueRange, value: text.text(valueRange), label: "\(key)\(condition) (line \(index + 1))",
                    isQuoted: groups[3] != nil, key: key
                )
                if isVersion { fields.versions.append(located) } else { fields.builds.append(located) }
            }
        }
        return fields
    }
}
