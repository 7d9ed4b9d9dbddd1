import Foundation
import ShiplaneTesting
import Testing
@testable import Shiplane

@Suite("Store notes: plain text, per locale, within each store's limit")
struct StoreNotesTests {
    @Test("a long text is cut on a line with a visible … and never passes the limit", arguments: [40, 100, 500])
    func fitting(_ limit: Int) {
        let text = (1...60).map { "• change number \($0) with some words" }.joined(separator: "\n")
        let fitted = StoreNotes.fitted(text, limit: limit)
        #expect(fitted.truncated)
        #expect(fitted.text.count <= limit)
        #expect(fitted.text.hasSuffix("…"))
        #expect(text.hasPrefix(String(fitted.text.dropLast().trimmingCharacters(in: .whitespacesAndNewlines))))
        #expect(StoreNotes.fitted("short", limit: limit) == ("short", false))
    }

    @Test func markdownGivenByHandBecomesPlainText() {
        let markdown = """
            ## [1.5.0] - 2026-11-25

            ### Features

            - **engine:** faster [launch](https://example.com/1) (`#12`)
            * second

            [1.5.0]: https://github.com/acme/app/compare/v1.4.0...v1.5.0

            """
        #expect(RenderStoreNotes.plain(markdown) == "1.5.0 - 2026-11-25\n\nFeatures\n\n• engine: faster launch (#12)\n• second")
    }

    func repository() throws -> FixtureRepository {
        let fixture = try FixtureRepository(files: ["VERSION": "1.4.0\n"])
        try fixture.git("tag", "-a", "v1.4.0", "-m", "v1.4.0")
        for index in 1...30 {
            try fixture.write(["f\(index).txt": "\(index)\n"])
            try fixture.git("add", ".")
            try fixture.git("commit", "-q", "-m", "feat(ui): the **\(index)th** improvement, see [docs](https://example.com/\(index))")
        }
        try fixture.write(["fix.txt": "x\n"])
        try fixture.git("add", ".")
        try fixture.git("commit", "-q", "-m", "fix: no crash on launch")
        return fixture
    }

    @Test func notesForPlayArePlainPerLanguageAndCutWithAWarning() throws {
        let fixture = try repository()
        let reporter = RecordingReporter()
        let lane = LaneContext(.init(workingDirectory: fixture.path, environment: LaneEnvironment(variables: [:]), reporter: reporter))
        try lane.bumpVersion(.minor)
        let notes = try lane.storeNotes(for: .googlePlay, locales: ["en-US", "de-DE"])
        #expect(notes.keys.sorted() == ["de-DE", "en-US"])
        let text = try #require(notes["en-US"])
        #expect(notes["de-DE"] == text)
        #expect(text.count <= 500 && text.hasSuffix("\n…"), "\(text)")
        #expect(text.hasPrefix("Features\n• ui: the 30th improvement, see docs\n"), "scopes stay, Markdown goes: \(text)")
        #expect(!text.contains("## ") && !text.contains("**") && !text.contains("- ") && !text.contains("(https://"))
        let warnings = reporter.events.compactMap { event -> String? in
            if case .message(let message, .warning, _) = event { return message }
            return nil
        }
        #expect(warnings.contains { $0.contains("Google Play release notes for en-US is") && $0.contains("the store takes 500") }, "\(warnings)")
        // TestFlight's 4,000 characters hold it all.
        let whole = try #require(try lane.storeNotes(for: .testFlight)["en-US"])
        #expect(!whole.contains("…") && whole.contains("Bug Fixes\n• no crash on launch"))
    }

    @Test func notesBeforeTheTagAreTheReleaseBeingMadeInADryRunAsInTheRealOne() throws {
        let fixture = try repository()
        for dryRun in [true, false] {
            let lane = LaneContext(.init(workingDirectory: fixture.path, environment: LaneEnvironment(variables: [:]),
                                         reporter: RecordingReporter(), isDryRun: dryRun))
            try lane.bumpVersion(.minor)
            let markdown = try lane.changelog(since: .lastTag)
            #expect(markdown.hasPrefix("## [1.5.0] - "), "dry run \(dryRun): \(markdown.prefix(40))")
            #expect(!markdown.contains("Unreleased"))
            if !dryRun { try fixture.git("checkout", "-q", "--", ".") }
        }
    }
}
