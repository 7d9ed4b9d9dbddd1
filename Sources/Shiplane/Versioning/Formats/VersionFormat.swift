import Foundation

/// A file format that holds a version, and maybe a build number, and can rewrite them in place.
///
/// Implementations are pure: they turn bytes into a reading and bytes into new bytes. Rewriting
/// changes only the bytes of the values; everything else (line endings, indentation, quotes,
/// comments, a trailing newline or its absence) stays byte-for-byte as it was.
package protocol VersionFormat: Sendable {
    /// A short name for messages: "package.json", "Info.plist".
    var name: String { get }
    /// True when the format has a build number (`CFBundleVersion`, `CURRENT_PROJECT_VERSION`).
    /// Formats without one ignore the `build` argument of `rewritten`.
    var hasBuildNumber: Bool { get }

    /// Reads the version and, where the format has one, the build number.
    /// - Throws: `VersionFileError`; `.notASource` when the file holds no version of its own.
    func read(_ data: Data) throws -> VersionReading

    /// Returns `original` with the version and build number replaced; `nil` leaves a value alone.
    /// Values delegated to build settings (`$(MARKETING_VERSION)`) are never rewritten.
    /// - Throws: `VersionFileError` when the file is malformed, lacks the field or holds
    ///   disagreeing copies of it.
    func rewritten(_ original: Data, version: SemanticVersion?, build: String?) throws -> Data

    /// The platforms whose build number the file's own build number is: Apple's for Xcode's
    /// files, Google Play's for Gradle's, both for a file both read (Flutter's `pubspec.yaml`).
    var buildSeries: Set<BuildSeries> { get }
}

extension VersionFormat {
    /// Both platforms: a file whose build number every platform reads.
    package var buildSeries: Set<BuildSeries> { Set(BuildSeries.allCases) }
}

/// A value in a version file: written there, or taken from a build setting resolved elsewhere.
package enum VersionField<Value: Hashable & Sendable>: Hashable, Sendable {
    /// The value written in the file.
    case literal(Value)
    /// A reference such as `$(MARKETING_VERSION)`; the build system supplies the value.
    case delegated(variable: String)

    /// The literal value, or `nil` when delegated.
    package var literal: Value? {
        if case .literal(let value) = self { return value }
        return nil
    }
}

/// What a version file holds.
package struct VersionReading: Hashable, Sendable {
    /// The version, or the build setting it is delegated to.
    package var version: VersionField<SemanticVersion>
    /// The build number, when the format has one and the file sets it.
    package var build: VersionField<String>?
    /// The version as the file writes it (`1.0` for an Apple marketing version read as 1.0.0),
    /// when the file holds one of its own.
    package var text: String?
    /// The variables the file's version refers to (`$(MARKETING_VERSION)`, `VERSION_NAME`).
    package var versionReferences: Set<String> = []
    /// The variables the file's build number refers to.
    package var buildReferences: Set<String> = []
    /// The variables the file sets to a value (`MARKETING_VERSION`, `APP_VERSION`), for formats
    /// that name their settings.
    package var definedVariables: Set<String> = []
    /// Copies that follow the version (an app extension's setting), by where they are:
    /// rewritten with it, never deciding it.
    package var followerVersions: [String: String] = [:]
    /// Copies that follow the build number, by where they are.
    package var followerBuilds: [String: String] = [:]
    /// How the format writes versions, to compare the followers' copies.
    package var versionShape: VersionShape = .semantic

    /// True for a file that holds a build number and no version (`VERSION_CODE=310`).
    package var holdsBuildOnly = false
    /// Each platform's build number, for a file that names the platform of each of its build
    /// numbers (Expo's `ios.buildNumber` and `android.versionCode`); empty otherwise. When the
    /// platforms' numbers differ, `build` is nil.
    package var seriesBuilds: [BuildSeries: String] = [:]

    /// True when the file holds a version of its own or copies that follow one: a bump rewrites it.
    package var holdsVersion: Bool { version.literal != nil || !followerVersions.isEmpty }
    /// True when the file holds a build number of its own or copies that follow one.
    package var holdsBuild: Bool { build?.literal != nil || !followerBuilds.isEmpty || !seriesBuilds.isEmpty }

    /// Creates a reading of a version and, optionally, a build number.
    package init(version: VersionField<SemanticVersion>, build: VersionField<String>? = nil) {
        self.version = version
        self.build = build
        self.text = version.literal?.description
    }
}

extension VersionField: CustomStringConvertible {
    /// The literal's text, or "delegated to $(VARIABLE)".
    package var description: String {
        switch self {
        case .literal(let value): "\(value)"
        case .delegated(let variable): "delegated to build settings ($(\(variable)))"
        }
    }
}

/// What one read of a version file found, with the rewrite of those same bytes.
struct ParsedVersionFile: Sendable {
    let reading: VersionReading
    /// The bytes that were read, with a new version and build number (`nil` leaves a value alone).
    let rewrite: @Sendable (SemanticVersion?, BuildNumbers) throws -> Data
}

/// The build numbers a rewrite writes: one for every value, with each platform's own where the
/// project keeps them apart (a value whose platform the file names takes its platform's).
package struct BuildNumbers: Sendable, Equatable {
    /// The number for values of no platform in particular, and for platforms not in `series`.
    package var all: String?
    /// Each platform's number.
    package var series: [BuildSeries: String] = [:]

    /// One number for every value; nil leaves build numbers alone.
    package init(_ all: String?) { self.all = all }

    /// Each platform's own number.
    package init(series: [BuildSeries: String]) {
        self.series = series
        self.all = Set(series.values).count == 1 ? series.values.first : nil
    }

    /// Nothing to write.
    package var isEmpty: Bool { all == nil && series.isEmpty }

    /// The number a value of `platform` takes (nil: of no platform in particular).
    package func value(for platform: BuildSeries?) -> String? {
        platform.flatMap { series[$0] } ?? all
    }
}
