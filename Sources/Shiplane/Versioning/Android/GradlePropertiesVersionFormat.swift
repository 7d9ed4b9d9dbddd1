import Foundation

/// A `gradle.properties` file holding the version for the build scripts:
/// `VERSION_NAME=1.2.3` and `VERSION_CODE=45` (also `versionName`, `appVersionName`,
/// `APP_VERSION_NAME` and the `…CODE` forms), and any property a script's `versionName` or
/// `versionCode` refers to. `key = value` and `key: value` are read; comments (`#`, `!`) and
/// every other line stay as they are.
package struct GradlePropertiesVersionFormat: TextualVersionFormat {
    /// `gradle.properties`, as messages name the format.
    package var name: String { "gradle.properties" }
    var versionKey: String { "VERSION_NAME" }
    var buildKey: String? { "VERSION_CODE" }
    /// Google Play's (`versionCode`).
    package var buildSeries: Set<BuildSeries> { [.android] }
    var versionShape: VersionShape { .android }

    /// The property names read as the version.
    package let versionProperties: [String]
    /// The property names read as the build number.
    package let buildProperties: [String]

    /// The names read without being referred to.
    package static let conventionalVersionProperties = ["VERSION_NAME", "versionName", "APP_VERSION_NAME", "appVersionName"]
    /// The build-number names read without being referred to.
    package static let conventionalBuildProperties = ["VERSION_CODE", "versionCode", "APP_VERSION_CODE", "appVersionCode"]

    /// Creates the format reading the conventional names and those named.
    package init(versionProperties: [String] = [], buildProperties: [String] = []) {
        self.versionProperties = Self.conventionalVersionProperties + versionProperties.filter { !Self.conventionalVersionProperties.contains($0) }
        self.buildProperties = Self.conventionalBuildProperties + buildProperties.filter { !Self.conventionalBuildProperties.contains($0) }
    }

    func checkBuild(_ build: String) throws { try AndroidVersionCode.check(build, format: name) }

    func locate(in text: VersionText) throws -> LocatedFields {
        let regex = try NSRegularExpression.builtIn(#"^\s*([A-Za-z0-9_.\-]+)\s*[=:]\s*(.*?)\s*$"#)
        var fields = LocatedFields()
        for index in text.lines.indices {
            guard let groups = text.matches(regex, inLine: index).first, let keyRange = groups[1], let valueRange = groups[2] else { continue }
            let key = text.text(keyRange)
            let isVersion = versionProperties.contains(key)
            guard isVersion || buildProperties.contains(key) else { continue }
            let located = LocatedValue(range: valueRange, value: text.text(valueRange), label: "\(key) (line \(index + 1))", key: key)
            if isVersion { fields.versions.append(located) } else { fields.builds.append(located) }
        }
        fields.absenceReason = "it sets no VERSION_NAME"
        return fields
    }
}

/// A Gradle version catalog (`gradle/libs.versions.toml`): the `[versions]` entries a build
/// script's `versionName = libs.versions.NAME.get()` refers to (and `versionName`/`versionCode`,
/// `app-version-name`/`app-version-code` without a reference).
package struct GradleVersionCatalogFormat: TextualVersionFormat {
    /// `libs.versions.toml`, as messages name the format.
    package var name: String { "libs.versions.toml" }
    var versionKey: String { "[versions] versionName" }
    var buildKey: String? { "[versions] versionCode" }
    /// Google Play's (`versionCode`).
    package var buildSeries: Set<BuildSeries> { [.android] }
    var versionShape: VersionShape { .android }

    /// How a reference to a catalog entry is written among variables: `libs.versions.` + accessor.
    static let catalogPrefix = "libs.versions."

    /// Accessors (`app.version`) read as the version.
    package let versionEntries: [String]
    /// Accessors read as the build number.
    package let buildEntries: [String]

    /// Creates the format reading the conventional entries and the accessors named.
    package init(versionEntries: [String] = [], buildEntries: [String] = []) {
        self.versionEntries = ["versionName", "app.version.name"] + versionEntries
        self.buildEntries = ["versionCode", "app.version.code"] + buildEntries
    }

    func checkBuild(_ build: String) throws { try AndroidVersionCode.check(build, format: name) }

    /// Gradle's accessor for an alias: `-` and `_` become `.`.
    static func accessor(_ key: String) -> String {
        String(key.map { $0 == "-" || $0 == "_" ? "." : $0 })
    }

    func locate(in text: VersionText) throws -> LocatedFields {
        let sections = try TOMLSections(text)
        let regex = try NSRegularExpression.builtIn(#"^\s*([A-Za-z0-9_.\-]+)\s*=\s*"([^"\\]*)"\s*(?:#.*)?$"#)
        var fields = LocatedFields()
        for line in sections.lines(in: "versions") {
            guard let groups = text.matches(regex, inLine: line.index).first, let keyRange = groups[1], let valueRange = groups[2] else { continue }
            let key = text.text(keyRange)
            let accessor = Self.accessor(key)
            let isVersion = versionEntries.map(Self.accessor).contains(accessor)
            guard isVersion || buildEntries.map(Self.accessor).contains(accessor) else { continue }
            let located = LocatedValue(range: valueRange, value: text.text(valueRange), label: "[versions] \(key) (line \(line.index + 1))",
                                       key: Self.catalogPrefix + accessor)
            if isVersion { fields.versions.append(located) } else { fields.builds.append(located) }
        }
        fields.absenceReason = "its [versions] hold no app version"
        return fields
    }
}
