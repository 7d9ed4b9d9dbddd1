import Foundation

/// An npm `package.json`: the top-level `"version"` string, edited in place.
///
/// Only the key of the outermost object counts: a `"version"` inside `dependencies`, `engines`
/// or any nested object or array is never read or changed (the scan tracks object and array
/// depth and skips string contents). The file must be valid JSON; the value found by the scan
/// is checked against Foundation's JSON parser. The format has no build number.
package struct PackageJSONVersionFormat: TextualVersionFormat {
    /// `package.json`, as messages name the format.
    package var name: String { "package.json" }
    var versionKey: String { "top-level \"version\"" }

    /// Creates the format; it holds no state.
    package init() {}

    func locate(in text: VersionText) throws -> LocatedFields {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(text.bytes), options: [.fragmentsAllowed])
        } catch {
            throw VersionFileError(.malformed, "The package.json file is not valid JSON", underlying: [error])
        }
        guard let object = parsed as? [String: Any] else {
            throw VersionFileError(.malformed, "The package.json file does not hold a JSON object at the top level")
        }
        let found = try Self.topLevelVersionValues(text)
        if let expected = object["version"] {
            guard let expected = expected as? String else {
                throw VersionFileError(.unsupported, "The top-level \"version\" in package.json is not a string")
            }
            guard found.contains(where: { $0.value == expected }) else {
                throw VersionFileError(
                    .unsupported,
                    "Cannot locate the top-level \"version\" of package.json in its text",
                    details: [("version", expected)],
                    suggestion: "Write the version as a plain string without escape sequences"
                )
            }
        }
        return LocatedFields(versions: found, absenceReason: "there is no top-level \"version\" key")
    }

    /// Every string value of a `"version"` key directly in the outermost object.
    static func topLevelVersionValues(_ text: VersionText) throws -> [LocatedValue] {
        let bytes = text.bytes
        var containers: [UInt8] = []
        var values: [LocatedValue] = []
        var index = 0
        var pendingKey: Range<Int>?
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                containers.append(byte)
                pendingKey = nil
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = containers.popLast()
                index += 1
            case UInt8(ascii: "\""):
                let contents = stringContents(bytes, from: index)
                index = contents.upperBound + 1
                guard containers == [UInt8(ascii: "{")] else { continue }
                if let key = pendingKey {
                    // A string after `"version":` at depth 1 is its value.
                    if text.text(key) == "version" {
                        values.append(LocatedValue(range: contents, value: text.text(contents), label: "line \(text.lineNumber(at: contents.lowerBound))"))
                    }
                    pendingKey = nil
                } else if nextSignificantByte(bytes, from: index) == UInt8(ascii: ":") {
                    pendingKey = contents
                }
            case UInt8(ascii: ":"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
            default:
                // A number, true, false or null: a non-string value ends the pending key.
                pendingKey = nil
                index += 1
            }
        }
        return values
    }

    /// The range inside the quotes of the string starting at `start`, honouring backslash escapes.
    private static func stringContents(_ bytes: [UInt8], from start: Int) -> Range<Int> {
        var index = start + 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        return (start + 1)..<min(index, bytes.count)
    }

    private static func nextSignificantByte(_ bytes: [UInt8], from start: Int) -> UInt8? {
        bytes[min(start, bytes.count)...].first { ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains($0) }
    }
}
