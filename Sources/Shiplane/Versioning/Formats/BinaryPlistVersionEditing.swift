import Foundation

/// Reading and rewriting the version keys of a binary (`bplist00`) Info.plist.
enum BinaryPlistVersionEditing {
    static func read(_ data: Data) throws -> VersionReading {
        let (dictionary, _) = try InfoPlistVersionFormat.dictionary(from: data)
        guard let rawVersion = dictionary[InfoPlistVersionFormat.versionKey] else {
            throw VersionFileError(.notASource, "The Info.plist file holds no \(InfoPlistVersionFormat.versionKey)")
        }
        let versionText = try string(rawVersion, key: InfoPlistVersionFormat.versionKey)
        let version: VersionField<SemanticVersion>
        if let variable = BuildSettingReference.variable(in: versionText) {
            version = .delegated(variable: variable)
        } else {
            do {
                version = .literal(try VersionShape.apple.parse(versionText))
            } catch let error as SemanticVersionParseError {
                throw VersionFileError(
                    .invalidValue,
                    "The \(InfoPlistVersionFormat.versionKey) in Info.plist, '\(quotedFromFile(versionText))', is not \(VersionShape.apple.article)",
                    suggestion: VersionShape.apple.expected,
                    underlying: [error]
                )
            }
        }
        var build: VersionField<String>?
        if let rawBuild = dictionary[InfoPlistVersionFormat.buildKey] {
            let buildText = try string(rawBuild, key: InfoPlistVersionFormat.buildKey)
            build = BuildSettingReference.variable(in: buildText).map { .delegated(variable: $0) } ?? .literal(buildText)
        }
        var reading = VersionReading(version: version, build: build)
        reading.text = version.literal == nil ? nil : versionText
        reading.versionReferences = Set([BuildSettingReference.variable(in: versionText)].compactMap { $0 })
        if case .delegated(let variable) = build { reading.buildReferences = [variable] }
        return reading
    }

    static func rewrite(_ data: Data, version: SemanticVersion?, build: String?) throws -> Data {
        var (dictionary, _) = try InfoPlistVersionFormat.dictionary(from: data)
        if let version {
            try VersionShape.apple.check(version, format: "Info.plist")
            let current = (dictionary[InfoPlistVersionFormat.versionKey] as? String) ?? ""
            try set(VersionShape.apple.text(for: version, replacing: current), key: InfoPlistVersionFormat.versionKey, in: &dictionary)
        }
        if let build {
            try set(try BuildNumber.validated(build), key: InfoPlistVersionFormat.buildKey, in: &dictionary)
        }
        do {
            return try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        } catch {
            throw VersionFileError(.bug, "Cannot write the binary Info.plist back", underlying: [error])
        }
    }

    private static func set(_ value: String, key: String, in dictionary: inout [String: Any]) throws {
        guard let current = dictionary[key] else {
            throw VersionFileError(.unsupported, "Cannot set \(key) in Info.plist: the key is missing")
        }
        if BuildSettingReference.variable(in: try string(current, key: key)) == nil {
            dictionary[key] = value
        }
    }

    private static func string(_ value: Any, key: String) throws -> String {
        guard let string = value as? String else {
            throw VersionFileError(.unsupported, "\(key) in Info.plist is not a string", suggestion: "Make it a <string> value")
        }
        return string
    }
}
