import Foundation

/// An `Info.plist`: `CFBundleShortVersionString` is the version, `CFBundleVersion` the build.
///
/// XML plists are edited textually: only the text inside `<string>…</string>` changes, so the
/// whitespace between key and value, comments and ordering stay as they were. Binary plists
/// (`bplist00`) are read and rewritten through `PropertyListSerialization`, which preserves
/// their content but not their byte layout. A value such as `$(MARKETING_VERSION)` is delegated
/// to build settings: it is reported as `.delegated` and never rewritten.
package struct InfoPlistVersionFormat: VersionFormat {
    /// `Info.plist`, as messages name the format.
    package var name: String { "Info.plist" }

    static let versionKey = "CFBundleShortVersionString"
    static let buildKey = "CFBundleVersion"

    /// True: `CFBundleVersion` is the build number.
    package var hasBuildNumber: Bool { true }
    /// Apple's.
    package var buildSeries: Set<BuildSeries> { [.apple] }

    /// Creates the format; it holds no state.
    package init() {}

    /// Reads `CFBundleShortVersionString` and `CFBundleVersion` from an XML or binary plist.
    /// - Throws: `VersionFileError` for a plist that does not parse, an old text plist, or a value that is
    ///   not a valid version or build number.
    package func read(_ data: Data) throws -> VersionReading {
        if Self.isBinary(data) {
            return try BinaryPlistVersionEditing.read(data)
        }
        return try TextualVersionEditing.read(data, format: XMLPlistFields())
    }

    /// Replaces the values: in the text of an XML plist, through `PropertyListSerialization` for a binary one.
    /// - Throws: `VersionFileError` when the plist does not parse or lacks a value to replace.
    package func rewritten(_ original: Data, version: SemanticVersion?, build: String?) throws -> Data {
        if Self.isBinary(original) {
            return try BinaryPlistVersionEditing.rewrite(original, version: version, build: build)
        }
        return try TextualVersionEditing.rewrite(original, version: version, build: BuildNumbers(build), format: XMLPlistFields())
    }

    static func isBinary(_ data: Data) -> Bool {
        data.starts(with: Array("bplist".utf8))
    }

    /// Parses a plist whose top level must be a dictionary.
    static func dictionary(from data: Data) throws -> (dictionary: [String: Any], format: PropertyListSerialization.PropertyListFormat) {
        var format = PropertyListSerialization.PropertyListFormat.xml
        let parsed: Any
        do {
            parsed = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        } catch {
            throw VersionFileError(
                .malformed,
                "The Info.plist file is not a valid property list",
                suggestion: "Check it with `plutil -lint`",
                underlying: [error]
            )
        }
        guard let dictionary = parsed as? [String: Any] else {
            throw VersionFileError(.malformed, "The Info.plist file does not hold a dictionary at the top level")
        }
        return (dictionary, format)
    }
}

/// The XML side of Info.plist, located by text and cross-checked with `PropertyListSerialization`.
private struct XMLPlistFields: TextualVersionFormat {
    var name: String { "Info.plist" }
    var versionKey: String { InfoPlistVersionFormat.versionKey }
    var buildKey: String? { InfoPlistVersionFormat.buildKey }
    var versionShape: VersionShape { .apple }

    func locate(in text: VersionText) throws -> LocatedFields {
        let (dictionary, format) = try InfoPlistVersionFormat.dictionary(from: Data(text.bytes))
        guard format == .xml else {
            throw VersionFileError(.unsupported, "Only XML and binary Info.plist files are supported, not the old text (OpenStep) format")
        }
        let entry = try NSRegularExpression.builtIn(
            #"<key>\s*(CFBundleShortVersionString|CFBundleVersion)\s*</key>\s*(?:<!--.*?-->\s*)*<string>([^<]*)</string>"#,
            options: [.dotMatchesLineSeparators]
        )
        let dictTag = try NSRegularExpression.builtIn(#"<(/?)dict\s*(/?)>"#)
        let tags = text.matches(dictTag).compactMap { groups -> (offset: Int, change: Int)? in
            guard let whole = groups[0], let closing = groups[1], let empty = groups[2] else { return nil }
            if !empty.isEmpty { return nil }
            return (whole.lowerBound, closing.isEmpty ? 1 : -1)
        }
        var fields = LocatedFields()
        for groups in text.matches(entry) {
            guard let whole = groups[0], let keyRange = groups[1], let valueRange = groups[2] else { continue }
            let depth = tags.filter { $0.offset < whole.lowerBound }.reduce(0) { $0 + $1.change }
            guard depth == 1 else { continue }
            let key = text.text(keyRange)
            let located = LocatedValue(range: valueRange, value: text.text(valueRange), label: "\(key) (line \(text.lineNumber(at: valueRange.lowerBound)))")
            if key == versionKey { fields.versions.append(located) } else { fields.builds.append(located) }
        }
        try crossCheck(fields.versions, key: versionKey, dictionary: dictionary)
        try crossCheck(fields.builds, key: InfoPlistVersionFormat.buildKey, dictionary: dictionary)
        return fields
    }

    /// Checks the text scan against the parsed plist, so entities or odd layouts cannot mislead it.
    private func crossCheck(_ located: [LocatedValue], key: String, dictionary: [String: Any]) throws {
        guard let value = dictionary[key] else { return }
        guard let string = value as? String else {
            throw VersionFileError(.unsupported, "\(key) in Info.plist is not a string", suggestion: "Make it a <string> value")
        }
        guard located.count == 1, located[0].value == string else {
            throw VersionFileError(
                .unsupported,
                "Cannot locate \(key) of Info.plist in its text",
                details: [("value", string)],
                suggestion: "Write it as <key>\(key)</key> followed by <string>VALUE</string> without entities"
            )
        }
    }
}
