import Foundation

/// A value found in a text file: its bytes' range, its text and where it is, for messages.
struct LocatedValue {
    let range: Range<Int>
    let value: String
    /// Where it is, for messages: "line 4", "Release (line 312)".
    let label: String
    /// True when the value sits inside quotes the format requires for some values.
    var isQuoted = false
    /// The setting or property the value is read from, when the format knows several
    /// (`MARKETING_VERSION`, `APP_VERSION`); nil for the format's own key.
    var key: String? = nil
    /// The variable a value that is not written here refers to, when the format's syntax for
    /// that is not `$(NAME)` (Gradle's `versionName = VERSION_NAME`).
    var explicitReference: String? = nil
    /// True for a copy that must follow the others (an app extension's setting): it is
    /// rewritten with them, but does not take part in deciding the version, and a different
    /// value is reported as out of step instead of refused.
    var follower = false
    /// For a version a script builds from numbered parts (Gradle's `"${versionMajor}.${versionMinor}"`):
    /// each part's places, in order. A bump rewrites these, never the template at `range`.
    var parts: [[LocatedValue]]? = nil
    /// For a build number computed from the script's numbers (`versionMajor * 10000 + …`): the
    /// expression. It is never rewritten; it follows the parts.
    var computedFrom: String? = nil
    /// For a build number, the platform it is for when the file names it (Expo's
    /// `ios.buildNumber` is Apple's, `android.versionCode` Google Play's); nil: the format's.
    var series: BuildSeries? = nil

    /// The variable the value refers to (`$(MARKETING_VERSION)`, `VERSION_NAME`), or nil for a literal.
    var reference: String? { explicitReference ?? BuildSettingReference.variable(in: value) }
}

/// The version and build values a textual format found.
struct LocatedFields {
    var versions: [LocatedValue] = []
    var builds: [LocatedValue] = []
    /// Why the file holds no version of its own, when the format can tell (`dynamic = ["version"]`).
    var absenceReason: String?
}

/// A format that finds its values by scanning text and rewrites them by replacing their bytes.
protocol TextualVersionFormat: VersionFormat {
    /// What the version is called in the file, for messages: "MARKETING_VERSION".
    var versionKey: String { get }
    /// What the build number is called, when the format has one.
    var buildKey: String? { get }
    /// Finds every version and build value.
    func locate(in text: VersionText) throws -> LocatedFields
    /// The text that replaces `original` to hold `value` (adds quotes where needed).
    func encode(_ value: String, replacing original: LocatedValue) -> String
    /// Which versions the format holds: SemVer, or an Apple marketing version (`1.0`).
    var versionShape: VersionShape { get }
    /// Refuses a build number the format cannot hold (Gradle's `versionCode` is an integer).
    /// Not asked for a value the file names as Apple's (Expo's `ios.buildNumber`).
    func checkBuild(_ build: String) throws
}

extension TextualVersionFormat {
    var buildKey: String? { nil }

    func encode(_ value: String, replacing original: LocatedValue) -> String { value }

    var versionShape: VersionShape { .semantic }

    func checkBuild(_ build: String) throws {}

    // The one shape every textual format fills in: it says where its values are (`locate`),
    // and reading, rewriting and the build-number question follow from that.

    /// True when the format names a build-number key.
    package var hasBuildNumber: Bool { buildKey != nil }

    /// Finds the values in the text and reads them.
    /// - Throws: `VersionFileError`; `.notASource` when the file holds no version of its own.
    package func read(_ data: Data) throws -> VersionReading {
        try TextualVersionEditing.read(data, format: self)
    }

    /// Replaces the bytes of each value found; every other byte stays as it was.
    /// - Throws: `VersionFileError` when a value to replace is missing or its copies disagree.
    package func rewritten(_ original: Data, version: SemanticVersion?, build: String?) throws -> Data {
        try TextualVersionEditing.rewrite(original, version: version, build: BuildNumbers(build), format: self)
    }
}

/// Reading and rewriting shared by the textual formats (and the XML side of Info.plist).
enum TextualVersionEditing {
    /// `VersionFormat.read` for a textual format.
    static func read(_ data: Data, format: some TextualVersionFormat) throws -> VersionReading {
        try read(try format.locate(in: try VersionText(data, format: format.name)), format: format)
    }

    /// `VersionFormat.rewritten` for a textual format.
    static func rewrite(_ data: Data, version: SemanticVersion?, build: BuildNumbers, format: some TextualVersionFormat) throws -> Data {
        try rewrite(try VersionText(data, format: format.name), version: version, build: build, format: format) {
            try format.locate(in: $0)
        }
    }

    /// Reads `data` once: the reading, and a rewrite that replaces the values where they were found.
    static func parse<Format: TextualVersionFormat>(_ data: Data, format: Format) throws -> ParsedVersionFile {
        let text = try VersionText(data, format: format.name)
        let fields = try format.locate(in: text)
        let reading = try read(fields, format: format)
        return ParsedVersionFile(reading: reading) { version, build in
            try rewrite(text, fields: fields, version: version, build: build, format: format) { try format.locate(in: $0) }
        }
    }

    static func read(_ fields: LocatedFields, format: some TextualVersionFormat) throws -> VersionReading {
        if fields.versions.isEmpty, !fields.builds.isEmpty, format.buildKey != nil {
            // Only a build number here (`VERSION_CODE=310` in gradle.properties): a source of it alone.
            var withBuildOnly = fields
            withBuildOnly.versions = []
            return try readBuildOnly(withBuildOnly, format: format)
        }
        guard !fields.versions.isEmpty else {
            throw VersionFileError(
                .notASource,
                "The \(format.name) file holds no \(format.versionKey)" + (fields.absenceReason.map { ": \($0)" } ?? "")
            )
        }
        let version: VersionField<SemanticVersion>
        switch try agreedField(fields.versions, key: format.versionKey, format: format.name) {
        case .delegated(let variable):
            version = .delegated(variable: variable)
        case .literal(let located):
            do {
                version = .literal(try format.versionShape.parse(located.value))
            } catch let error as SemanticVersionParseError {
                throw VersionFileError(
                    .invalidValue,
                    "The \(format.versionKey) in \(format.name), '\(quotedFromFile(located.value))', is not \(format.versionShape.article)",
                    details: [("where", located.label)],
                    suggestion: format.versionShape == .semantic ? error.suggestion : format.versionShape.expected,
                    underlying: [error]
                )
            }
        }
        var build: VersionField<String>?
        var seriesBuilds: [BuildSeries: String] = [:]
        if let buildKey = format.buildKey, !fields.builds.isEmpty {
            (build, seriesBuilds) = try agreedBuild(fields.builds, key: buildKey, format: format.name)
        }
        var reading = VersionReading(version: version, build: build)
        reading.seriesBuilds = seriesBuilds
        reading.followerVersions = Dictionary(fields.versions.filter { $0.follower && $0.reference == nil }.map { ($0.label, $0.value) }) { first, _ in first }
        reading.followerBuilds = Dictionary(fields.builds.filter { $0.follower && $0.reference == nil }.map { ($0.label, $0.value) }) { first, _ in first }
        reading.versionShape = format.versionShape
        reading.text = fields.versions.first { $0.reference == nil && !$0.follower }?.value
        reading.versionReferences = Set(fields.versions.compactMap(\.reference))
        reading.buildReferences = Set(fields.builds.compactMap(\.reference))
        reading.definedVariables = Set((fields.versions + fields.builds).compactMap(\.key))
        return reading
    }

    /// The build number of a file's build values: one, or each platform's where the file names
    /// the platform of each value (Expo) — the values of one platform must agree, the platforms need not.
    /// - Throws: `VersionFileError.inconsistent` when copies for one platform differ.
    private static func agreedBuild(_ values: [LocatedValue], key: String, format: String) throws -> (VersionField<String>?, [BuildSeries: String]) {
        let platforms = Set(values.compactMap(\.series))
        guard !platforms.isEmpty else {
            switch try agreedField(values, key: key, format: format) {
            case .delegated(let variable): return (.delegated(variable: variable), [:])
            case .literal(let located): return (.literal(located.value), [:])
            }
        }
        var series: [BuildSeries: String] = [:]
        var field: VersionField<String>?
        for platform in platforms.sorted() {
            switch try agreedField(values.filter { $0.series == platform }, key: key, format: format) {
            case .delegated(let variable): field = field ?? .delegated(variable: variable)
            case .literal(let located): series[platform] = located.value
            }
        }
        if Set(series.values).count == 1, let one = series.values.first { field = .literal(one) } else if !series.isEmpty { field = nil }
        return (field, series)
    }

    /// The reading of a file that holds a build number and no version.
    private static func readBuildOnly(_ fields: LocatedFields, format: some TextualVersionFormat) throws -> VersionReading {
        let build: VersionField<String>
        switch try agreedField(fields.builds, key: format.buildKey ?? "build", format: format.name) {
        case .delegated(let variable): build = .delegated(variable: variable)
        case .literal(let located): build = .literal(located.value)
        }
        var reading = VersionReading(version: .delegated(variable: format.versionKey), build: build)
        reading.text = nil
        reading.buildReferences = Set(fields.builds.compactMap(\.reference))
        reading.followerBuilds = Dictionary(fields.builds.filter { $0.follower && $0.reference == nil }.map { ($0.label, $0.value) }) { first, _ in first }
        reading.definedVariables = Set(fields.builds.compactMap(\.key))
        reading.holdsBuildOnly = true
        return reading
    }

    static func rewrite(
        _ text: VersionText,
        version: SemanticVersion?,
        build: BuildNumbers,
        format: some TextualVersionFormat,
        locate: (VersionText) throws -> LocatedFields
    ) throws -> Data {
        try rewrite(text, fields: try locate(text), version: version, build: build, format: format, locate: locate)
    }

    /// Replaces the values `fields` found in `text`; `locate` reads the result back to check it.
    static func rewrite(
        _ text: VersionText,
        fields: LocatedFields,
        version: SemanticVersion?,
        build: BuildNumbers,
        format: some TextualVersionFormat,
        locate: (VersionText) throws -> LocatedFields
    ) throws -> Data {
        var edits: [(range: Range<Int>, replacement: String)] = []
        if let version, !(fields.versions.isEmpty && !fields.builds.isEmpty && format.buildKey != nil) {
            guard !fields.versions.isEmpty else {
                throw VersionFileError(
                    .notASource,
                    "Cannot set the version in \(format.name): it holds no \(format.versionKey)" + (fields.absenceReason.map { " (\($0))" } ?? "")
                )
            }
            _ = try agreedField(fields.versions, key: format.versionKey, format: format.name)
            try format.versionShape.check(version, format: format.name)
            for located in fields.versions where located.reference == nil {
                if let parts = located.parts {
                    edits += try GradleVersionParts.edits(parts, version: version, label: located.label, script: format.name)
                    continue
                }
                edits.append((located.range, format.encode(format.versionShape.text(for: version, replacing: located.value), replacing: located)))
            }
        }
        if !build.isEmpty, let buildKey = format.buildKey {
            guard !fields.builds.isEmpty else {
                throw VersionFileError(.unsupported, "Cannot set the build number in \(format.name): it holds no \(buildKey)")
            }
            _ = try agreedBuild(fields.builds, key: buildKey, format: format.name)
            for located in fields.builds where located.reference == nil && located.computedFrom == nil {
                guard let value = build.value(for: located.series) else { continue }
                try BuildNumber.validated(value)
                // Apple's build numbers may be dotted (1.7.0.4): Google Play's rule is not theirs.
                if located.series != .apple { try format.checkBuild(value) }
                edits.append((located.range, format.encode(value, replacing: located)))
            }
        }
        // A part named twice in one template, or read by two flavours' templates, is one edit.
        var seen: Set<Int> = []
        edits = edits.filter { seen.insert($0.range.lowerBound).inserted }
        let result = text.replacing(edits)
        if let all = build.all {
            try checkComputedBuilds(in: result, build: all, format: format, locate: locate)
        }
        try verify(result, version: version, build: build, format: format, locate: locate)
        return result
    }

    /// Reads the rewritten bytes back: a rewrite that does not read as written is a defect.
    private static func verify(
        _ data: Data,
        version: SemanticVersion?,
        build: BuildNumbers,
        format: some TextualVersionFormat,
        locate: (VersionText) throws -> LocatedFields
    ) throws {
        let fields = try locate(try VersionText(data, format: format.name))
        let literalVersions = fields.versions.filter { $0.reference == nil }.map(\.value)
        let literalBuildValues = fields.builds.filter { $0.reference == nil && $0.computedFrom == nil }
        let literalBuilds = literalBuildValues.map(\.value)
        let versionOK = version.map { v in literalVersions.allSatisfy { (try? format.versionShape.parse($0)) == v } } ?? true
        let buildOK = format.buildKey == nil || literalBuildValues.allSatisfy { located in build.value(for: located.series).map { $0 == located.value } ?? true }
        guard versionOK, buildOK else {
            throw VersionFileError(
                .bug,
                "Rewriting \(format.name) did not give the requested values",
                details: [("version", literalVersions.joined(separator: ", ")), ("build", literalBuilds.joined(separator: ", "))]
            )
        }
    }

    /// Refuses a build number that a computed `versionCode` would not give: it follows the version.
    /// - Throws: `VersionFileError.unsupported` naming the expression and what it gives.
    private static func checkComputedBuilds(
        in data: Data, build: String, format: some TextualVersionFormat, locate: (VersionText) throws -> LocatedFields
    ) throws {
        let fields = try locate(try VersionText(data, format: format.name))
        for located in fields.builds {
            guard let expression = located.computedFrom, located.value != build else { continue }
            throw VersionFileError(
                .unsupported,
                "\(format.buildKey ?? "The build number") in \(format.name) is computed from the version (`\(expression)`, \(located.label)): "
                    + "it is \(located.value) with this version, and cannot be set to \(build) on its own",
                suggestion: "Bump the version without --build: the build number follows it; or write the build number as a number in the script"
            )
        }
    }

    /// The one value all copies hold (delegated copies aside), or the delegation when all are.
    /// - Throws: `VersionFileError.inconsistent` listing every copy when literal copies differ.
    static func agreedField(_ values: [LocatedValue], key: String, format: String) throws -> AgreedField {
        // Followers (an extension's copy) never decide the value; they are rewritten with it.
        let literals = values.filter { $0.reference == nil && !$0.follower }
        guard let first = literals.first else {
            let variable = values.first { !$0.follower }?.reference ?? key
            return .delegated(variable: variable)
        }
        guard literals.allSatisfy({ $0.value == first.value }) else {
            throw VersionFileError(
                .inconsistent,
                "The \(format) file sets \(key) to different values",
                details: values.filter { !$0.follower }.map { (key: $0.label, value: quotedFromFile($0.value)) },
                suggestion: "Make every \(key) the same, then run again"
            )
        }
        return .literal(first)
    }
}

/// The outcome of reconciling every copy of a value in one file.
enum AgreedField {
    case literal(LocatedValue)
    case delegated(variable: String)
}

/// Recognises values that refer to a build setting instead of holding a value.
enum BuildSettingReference {
    /// The variable of `$(NAME)`, `${NAME}` or `$(NAME:modifier)`, or `nil` for a plain value.
    static func variable(in value: String) -> String? {
        // A reference starts with `$` after any blanks; anything else is a plain value, known
        // without trimming the whole of it (a 10 MB value took a second).
        guard value.unicodeScalars.first(where: { !CharacterSet.whitespaces.contains($0) }) == "$" else { return nil }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("$(") && trimmed.hasSuffix(")") || trimmed.hasPrefix("${") && trimmed.hasSuffix("}") else {
            return nil
        }
        let inner = trimmed.dropFirst(2).dropLast()
        let name = inner.prefix { $0 != ":" }
        guard !name.isEmpty, name.allSatisfy({ $0 == "_" || SemanticVersionParser.isIdentifierCharacter($0) && $0 != "-" }) else {
            return nil
        }
        return String(name)
    }
}
