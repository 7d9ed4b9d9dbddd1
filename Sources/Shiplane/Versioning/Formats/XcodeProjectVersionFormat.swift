import Foundation

/// An Xcode `project.pbxproj`: `MARKETING_VERSION` and `CURRENT_PROJECT_VERSION` (and the
/// settings they refer to) in the build configurations, quoted or not.
///
/// A conditional setting (`"MARKETING_VERSION[sdk=iphoneos*]" = 2.0;`) is one more copy, named
/// with its condition. Without a list of configurations, every configuration counts; detection passes the
/// configurations of the targets that ship with the app (the app, its extensions, widgets and
/// watch app, and the project's own configurations they inherit), so a helper or test target
/// with a version of its own is left alone. The configurations read must agree; when they do
/// not, the error lists each one (target, configuration and line). A value that needs quotes
/// in the OpenStep format (anything beyond letters, digits, `_`, `.` and `/`) gets them on
/// rewrite. Versions are Apple marketing versions (`1.0` stays `1.x`).
package struct XcodeProjectVersionFormat: TextualVersionFormat {
    /// `project.pbxproj`, as messages name the format.
    package var name: String { "project.pbxproj" }
    var versionKey: String { "MARKETING_VERSION" }
    var buildKey: String? { buildVariables.isEmpty ? nil : "CURRENT_PROJECT_VERSION" }
    var versionShape: VersionShape { .apple }
    /// Apple's.
    package var buildSeries: Set<BuildSeries> { [.apple] }

    /// The settings that hold the version: `MARKETING_VERSION` and those it refers to.
    package let versionVariables: [String]
    /// The settings that hold the build number: `CURRENT_PROJECT_VERSION` and those it refers to.
    package let buildVariables: [String]
    /// The build configurations read, by object identifier, each with its name for messages
    /// ("Widget Release"); nil reads every configuration.
    package let configurations: [String: String]?
    /// The configurations of targets that follow the app (extensions, widgets, watch apps):
    /// rewritten with it, and reported when they hold another value.
    package let followers: Set<String>

    /// Creates the format reading `MARKETING_VERSION`, `CURRENT_PROJECT_VERSION` and the
    /// settings named, in `configurations` (nil: in every one); `followers` follow the others.
    /// `readsVersion` and `readsBuild` false leave out settings no target uses: where every
    /// released target's Info.plist writes its version (or build) itself, as Expo's prebuilt
    /// projects do beside their template's `MARKETING_VERSION = 1.0`, `CURRENT_PROJECT_VERSION = 1`.
    package init(
        versionVariables: [String] = [], buildVariables: [String] = [], configurations: [String: String]? = nil, followers: Set<String> = [],
        readsVersion: Bool = true, readsBuild: Bool = true
    ) {
        self.followers = followers
        self.versionVariables = readsVersion ? ["MARKETING_VERSION"] + versionVariables.filter { $0 != "MARKETING_VERSION" } : []
        self.buildVariables = readsBuild ? ["CURRENT_PROJECT_VERSION"] + buildVariables.filter { $0 != "CURRENT_PROJECT_VERSION" } : []
        self.configurations = configurations
    }

    func locate(in text: VersionText) throws -> LocatedFields {
        let setting = try NSRegularExpression.builtIn(
            #"^\s*"?([A-Za-z_][A-Za-z0-9_]*)((?:\[[^\]=]+=[^\]]*\])*)"?\s*=\s*(?:"([^"]*)"|([^;\s"]*))\s*;"#
        )
        let objectHeader = try NSRegularExpression.builtIn(#"^\s*([0-9A-Fa-f]{24})\s*(?:/\*\s*(.*?)\s*\*/)?\s*=\s*\{"#)
        var fields = LocatedFields()
        var object: String?
        var configuration = "build settings"
        for index in text.lines.indices {
            if let header = text.matches(objectHeader, inLine: index).first, let idRange = header[1] {
                object = text.text(idRange)
                configuration = header[2].map { text.text($0) } ?? "build settings"
                if let configurations, let id = object, let label = configurations[id] { configuration = label }
            }
            if let configurations {
                guard let id = object, configurations[id] != nil else { continue }
            }
            for groups in text.matches(setting, inLine: index) {
                guard let keyRange = groups[1], let valueRange = groups[3] ?? groups[4] else { continue }
                let key = text.text(keyRange)
                let isVersion = versionVariables.contains(key)
                guard isVersion || buildVariables.contains(key) else { continue }
                let condition = groups[2].map { text.text($0) } ?? ""
                let located = LocatedValue(
                    range: valueRange,
                    value: text.text(valueRange),
                    label: "\(configuration) \(key)\(condition) (line \(index + 1))",
                    isQuoted: groups[3] != nil,
                    key: key,
                    follower: object.map { followers.contains($0) } ?? false
                )
                if isVersion { fields.versions.append(located) } else { fields.builds.append(located) }
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
