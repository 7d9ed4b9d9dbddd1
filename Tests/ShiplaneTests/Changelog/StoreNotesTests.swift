import Foundation
import ShiplaneTesting
import Testing
@testable import Shiplane

@Suite("Store notes: plain text, per locale, within each store's limit", .offThePool)
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

    /// Notes kept in files as fastlane's metadata folders keep them: one file per locale, each
    /// made plain and cut by the store's rule; every folder with such a file is a locale.
    @Test func notesFromFilesPerLocaleInFastlanesLayout() throws {
        let long = String(repeating: "- a **long** line about [the change](https://example.com)\n", count: 20)
        let fixture = try FixtureRepository(files: [
            "VERSION": "1.4.0\n",
            "fastlane/metadata/android/en-US/changelogs/default.txt": "- Faster **launch**\n- Fewer crashes\n",
            "fastlane/metadata/android/de-DE/changelogs/default.txt": long,
            "fastlane/metadata/android/fr-FR/title.txt": "no changelog here\n",
        ])
        let reporter = RecordingReporter()
        let lane = LaneContext(.init(workingDirectory: fixture.path, environment: LaneEnvironment(variables: [:]), reporter: reporter))
        let notes = try lane.storeNotes(for: .googlePlay, files: "fastlane/metadata/android/{locale}/changelogs/default.txt")
        #expect(notes.keys.sorted() == ["de-DE", "en-US"], "a folder without the file is no locale: \(notes.keys)")
        #expect(notes["en-US"] == "• Faster launch\n• Fewer crashes")
        let german = try #require(notes["de-DE"])
        #expect(german.count <= 500 && german.hasSuffix("\n…") && german.hasPrefix("• a long line about the change\n"), "\(german)")
        let warnings = reporter.events.compactMap { event -> String? in
            if case .message(let message, .warning, _) = event { return message }
            return nil
        }
        #expect(warnings.contains { $0.contains("for de-DE is") }, "\(warnings)")
    }

    /// A pattern without `{locale}`, one that matches nothing, a path out of the repository and an
    /// empty file are errors that say what is wrong; nothing falls back to the changelog.
    @Test func notesFromFilesThatAreNotThereAreAnError() throws {
        let fixture = try FixtureRepository(files: ["VERSION": "1.4.0\n", "metadata/en-US/release_notes.txt": "\n"])
        let lane = LaneContext(.init(workingDirectory: fixture.path, environment: LaneEnvironment(variables: [:]), reporter: RecordingReporter()))
        func problems(_ pattern: String) -> String {
            do {
                _ = try lane.storeNotes(for: .testFlight, files: pattern)
                return "no error"
            } catch {
                let cause = (error as? StepFailure)?.cause ?? error
                return (cause as? ValidationFailure)?.problems.joined(separator: "\n") ?? "another error: \(cause)"
            }
        }
        #expect(problems("metadata/en-US/release_notes.txt").contains("has no {locale}"))
        #expect(problems("fastlane/metadata/{locale}/release_notes.txt").contains("no file matches"))
        #expect(problems("../elsewhere/{locale}/notes.txt").contains("must be a path inside the repository"))
        #expect(problems("metadata/{locale}/release_notes.txt").contains("metadata/en-US/release_notes.txt is empty"))
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
