import Foundation

/// Any text file, with the version found by a user-given regular expression.
///
/// The pattern (ICU syntax, as `NSRegularExpression`; `^` and `$` match at line breaks) must
/// have exactly one capture group: the version. Every match is read and rewritten (they must
/// agree); `maxMatches` limits it to the first ones. The format has no build number.
package struct PatternVersionFormat: TextualVersionFormat {
    /// `file matched by pattern`, as messages name the format.
    package var name: String { "file matched by pattern" }
    var versionKey: String { "version matching \(pattern)" }

    /// The regular expression as the user gave it.
    package let pattern: String
    /// How many matches, from the top, are the version; nil for every one.
    package let maxMatches: Int?
    private let regex: NSRegularExpression

    /// Compiles `pattern`.
    /// - Throws: `VersionFileError.pattern` when it does not compile or does not have exactly
    ///   one capture group.
    package init(pattern: String, maxMatches: Int? = nil) throws {
        guard maxMatches.map({ $0 >= 1 }) ?? true else {
            throw VersionFileError(.pattern, "maxMatches must be at least 1", details: [("pattern", pattern)])
        }
        self.maxMatches = maxMatches
        do {
            regex = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        } catch {
            throw VersionFileError(.pattern, "The version pattern does not compile", details: [("pattern", pattern)], underlying: [error])
        }
        guard regex.numberOfCaptureGroups == 1 else {
            throw VersionFileError(
                .pattern,
                "The version pattern must have exactly one capture group, the version; it has \(regex.numberOfCaptureGroups)",
                details: [("pattern", pattern)],
                suggestion: regex.numberOfCaptureGroups == 0
                    ? #"Put parentheses around the version, for example version: "([^"]+)""#
                    : "Make the other groups non-capturing with (?:...)"
            )
        }
        self.pattern = pattern
    }

    func locate(in text: VersionText) throws -> LocatedFields {
        let matches = text.matches(regex)
        guard !matches.isEmpty else {
            throw VersionFileError(
                .pattern,
                "The version pattern does not match the file",
                details: [("pattern", pattern)],
                suggestion: "Check the pattern against the file's text; '.' does not match line breaks"
            )
        }
        var versions: [LocatedValue] = []
        for match in matches.prefix(maxMatches ?? matches.count) {
            guard let range = match[1] else {
                throw VersionFileError(.pattern, "The version pattern matched, but its capture group took no part", details: [("pattern", pattern)])
            }
            versions.append(LocatedValue(range: range, value: text.text(range), label: "line \(text.lineNumber(at: range.lowerBound))"))
        }
        return LocatedFields(versions: versions)
    }
}
