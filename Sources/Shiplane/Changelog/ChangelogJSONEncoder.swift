import Foundation

/// Encodes releases as JSON for `--json`, with sorted keys and ISO-8601 dates so output is stable.
///
/// Shape: `{"releases": [{"title", "tagName"?, "date"?, "previousTagName"?, "compareURL"?,
/// "commits": [ChangelogCommit…], "groups": [{"title", "kind", "commits": [ChangelogCommit…]}]}]}`.
/// `commits` holds every commit of the release's range (newest first, as `git log` lists them);
/// `groups` only those the configuration shows, grouped exactly as in the Markdown output. `nil`
/// values are left out.
package struct ChangelogJSONEncoder: Sendable {
    /// How commits are grouped and which are shown.
    package var configuration: ChangelogConfiguration
    /// Where compare links point; nil leaves `compareURL` out.
    package var links: RemoteLinks?

    /// Creates an encoder.
    package init(configuration: ChangelogConfiguration = .init(), links: RemoteLinks? = nil) {
        self.configuration = configuration
        self.links = links
    }

    /// The JSON document for the releases, pretty-printed and ending without a newline.
    /// - Throws: ``ChangelogError/jsonEncodingFailed(underlying:)``, which would be a defect.
    package func encode(_ releases: [ChangelogRelease]) throws -> Data {
        try encoded(Document(releases: releases.map(value(of:))))
    }

    /// One release's JSON as it stands inside the document of `encode(_:)`, for building that
    /// document one release at a time (`document(_:)` joins the pieces): a whole history is then
    /// never held as values at once, only as text.
    package func encodedRelease(_ release: ChangelogRelease) throws -> String {
        let text = String(decoding: try encoded(value(of: release)), as: UTF8.self)
        // Nested two levels deeper; the blank line inside an empty array stays blank.
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? "" : "    " + $0 }.joined(separator: "\n")
    }

    /// The document `encode(_:)` makes, byte for byte, from pieces of `encodedRelease(_:)`.
    package static func document(_ pieces: [String]) -> String {
        documentStart + pieces.joined(separator: ",\n") + documentEnd
    }

    /// The text before the first release, and after the last, of `encode(_:)`'s document.
    static let documentStart = "{\n  \"releases\" : [\n"
    static let documentEnd = "\n  ]\n}"

    private func value(of release: ChangelogRelease) -> Release {
        Release(
            title: release.title,
            tagName: release.tagName,
            date: release.date,
            previousTagName: release.previousTagName,
            compareURL: release.compareURL(links: links),
            commits: release.commits,
            groups: release.groups(configuration: configuration))
    }

    private func encoded<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        do {
            return try encoder.encode(value)
        } catch {
            throw ChangelogError.jsonEncodingFailed(underlying: error)
        }
    }

    private struct Document: Encodable {
        var releases: [Release]
    }

    private struct Release: Encodable {
        var title: String
        var tagName: String?
        var date: Date?
        var previousTagName: String?
        var compareURL: String?
        var commits: [ChangelogCommit]
        var groups: [ChangelogGroup]
    }
}
