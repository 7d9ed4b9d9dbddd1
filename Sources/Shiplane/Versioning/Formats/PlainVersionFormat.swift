import Foundation

/// A `VERSION` file: the whole content, without surrounding whitespace, is the version.
///
/// Whitespace (ASCII spaces, tabs and line breaks) around the version, including a trailing
/// newline or its absence, and a UTF-8 byte-order mark before it, are kept exactly on rewrite.
/// The format has no build number.
package struct PlainVersionFormat: TextualVersionFormat {
    /// `VERSION`, as messages name the format.
    package var name: String { "VERSION" }
    var versionKey: String { "version" }

    /// Creates the format; it holds no state.
    package init() {}

    func locate(in text: VersionText) throws -> LocatedFields {
        let isSpace: (UInt8) -> Bool = { [9, 10, 11, 12, 13, 32].contains($0) }
        // A byte-order mark (Notepad writes one) is not part of the version; kept on rewrite.
        var start = text.bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var end = text.bytes.count
        while start < end, isSpace(text.bytes[start]) { start += 1 }
        while end > start, isSpace(text.bytes[end - 1]) { end -= 1 }
        guard start < end else {
            throw VersionFileError(
                .invalidValue, "The VERSION file is empty",
                suggestion: "Write the current version in it (for example 0.1.0), or remove it if the version lives elsewhere"
            )
        }
        return LocatedFields(versions: [LocatedValue(range: start..<end, value: text.text(start..<end), label: "line \(text.lineNumber(at: start))")])
    }
}
