import Foundation
import Testing

@testable import Shiplane

/// Sample commits and releases shared by the rendering tests, and golden-file comparison.
enum ChangelogSamples {
    static let releaseDate = Date(timeIntervalSince1970: 1_795_341_600)  // 2026-11-22T10:00:00Z

    static func commit(_ number: Int, _ message: String, isMerge: Bool = false) -> ChangelogCommit {
        // Distinct abbreviations: the number in hex, then filler.
        let id = String(number, radix: 16) + String(repeating: "c0ffee", count: 7)
        return ChangelogCommit(
            id: String(id.prefix(40)), message: message, authorName: "Ada Lovelace", authorEmail: "ada@example.com",
            date: releaseDate.addingTimeInterval(Double(-number) * 3600), isMerge: isMerge)
    }

    static let longDescription = String(repeating: "very long words ", count: 30)

    static let release120 = ChangelogRelease(
        title: "1.2.0", tagName: "v1.2.0", date: releaseDate, previousTagName: "v1.1.0",
        commits: [
            commit(1, "feat(parser): accept tabs in headers\n\nCloses #12"),
            commit(2, "fix: handle <script> and [links](x) in *descriptions*"),
            commit(3, "feat(api)!: remove the v1 endpoints\n\nBREAKING CHANGE: clients must call /v2\n  (see #40 for the migration)"),
            commit(4, "perf: cache parsed manifests (#15)"),
            commit(5, "docs: explain the # heading rule"),
            commit(6, "chore: bump dependencies"),
            commit(7, "Update README"),
            commit(8, "Merge pull request #20 from o/feature", isMerge: true),
            commit(9, "# leading hash is escaped"),
            commit(10, "fix(ui): " + longDescription),
            commit(11, "build!: require Swift 6"),
            commit(12, "wip: unknown type"),
            commit(13, "revert: undo feature X\n\nRefs: abc1234"),
        ])

    static let unreleased = ChangelogRelease(
        title: "Unreleased", previousTagName: "v1.2.0", commits: [commit(20, "fix: late fix")])

    static let release100 = ChangelogRelease(
        title: "1.0.0", tagName: "v1.0.0", date: releaseDate.addingTimeInterval(-86_400 * 30),
        commits: [commit(30, "feat: initial release")])

    static let githubLinks = RemoteLinks(remoteURL: "git@github.com:shiplane/shiplane.git")
}

/// Compares output with a file in Fixtures/Changelog; with SHIPLANE_UPDATE_GOLDEN=1 it rewrites the
/// file instead (and fails, so a recording run is never mistaken for a passing one).
func expectChangelogGolden(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Changelog/\(name)")
    if ProcessInfo.processInfo.environment["SHIPLANE_UPDATE_GOLDEN"] == "1" {
        try actual.write(to: url, atomically: true, encoding: .utf8)
        Issue.record("Recorded golden file \(name)", sourceLocation: sourceLocation)
        return
    }
    let expected = try String(contentsOf: url, encoding: .utf8)
    #expect(actual == expected, "output differs from \(name)", sourceLocation: sourceLocation)
}
