import Foundation
import Testing

@testable import Shiplane

@Suite("CHANGELOG.md upkeep", .offThePool)
struct ChangelogFileEditorTests {
    let editor = ChangelogFileEditor()
    let section = "## [1.2.0] - 2026-11-22\n\n### Features\n\n- new thing (abc1234)\n"
    let definition = "[1.2.0]: https://github.com/o/r/compare/v1.1.0...v1.2.0"

    @Test func newFileGetsHeaderAndSection() throws {
        let output = try editor.updatedChangelog(existing: nil, newSection: section, version: "1.2.0", linkReferenceDefinition: definition)
        #expect(output == ChangelogFileEditor.defaultHeader + "\n" + section + "\n" + definition + "\n")
        #expect(output.hasPrefix("# Changelog\n"))
        // An empty file counts as no file.
        #expect(try editor.updatedChangelog(existing: "", newSection: section, version: "1.2.0") == ChangelogFileEditor.defaultHeader + "\n" + section)
    }

    @Test func replacesTheUnreleasedSection() throws {
        let existing = """
            # Changelog

            Intro.

            ## [Unreleased]

            - pending entry

            ## [1.1.0] - 2026-01-01

            - old

            [Unreleased]: https://github.com/o/r/compare/v1.1.0...HEAD
            [1.1.0]: https://github.com/o/r/compare/v1.0.0...v1.1.0

            """
        let output = try editor.updatedChangelog(existing: existing, newSection: section, version: "1.2.0", linkReferenceDefinition: definition)
        #expect(output == """
            # Changelog

            Intro.

            \(section)
            ## [1.1.0] - 2026-01-01

            - old

            [Unreleased]: https://github.com/o/r/compare/v1.1.0...HEAD
            \(definition)
            [1.1.0]: https://github.com/o/r/compare/v1.0.0...v1.1.0

            """)
    }

    @Test func replacesAnUnreleasedSectionThatEndsTheFile() throws {
        let existing = "# Changelog\n\n## Unreleased\n\n- a\n\n[1.1.0]: https://x\n"
        let output = try editor.updatedChangelog(existing: existing, newSection: section, version: "1.2.0", linkReferenceDefinition: definition)
        #expect(output == "# Changelog\n\n" + section + "\n" + definition + "\n[1.1.0]: https://x\n")
    }

    @Test func insertsBeforeTheFirstReleaseAndKeepsEveryOtherByte() throws {
        let existing = "# Changelog\n\nIntro   with trailing spaces   \n\n\n## 1.1.0\n\n- old\t\n\n```\n## 9.9.9 in a fence\n```\n"
        let output = try editor.updatedChangelog(existing: existing, newSection: section, version: "1.2.0")
        let insertion = try #require(output.range(of: section + "\n"))
        var withoutInsertion = output
        withoutInsertion.removeSubrange(insertion)
        #expect(Array(withoutInsertion.utf8) == Array(existing.utf8))
        #expect(output.hasPrefix("# Changelog\n\nIntro   with trailing spaces   \n\n\n## [1.2.0]"))
    }

    @Test func titleWithoutReleasesGetsTheSectionAfterTheIntro() throws {
        let existing = "# Changelog\n\nNothing yet."
        let output = try editor.updatedChangelog(existing: existing, newSection: section, version: "1.2.0", linkReferenceDefinition: definition)
        #expect(output == existing + "\n\n" + section + "\n" + definition + "\n")
    }

    @Test(
        "a version that already has a section is refused",
        arguments: ["## [1.2.0] - 2026-01-01", "## 1.2.0", "## v1.2.0", "## [v1.2.0](https://x)", "##   [1.2.0]"])
    func duplicateVersion(_ heading: String) throws {
        let existing = "# Changelog\n\n## [Unreleased]\n\n" + heading + "\n\n- old\n"
        for version in ["1.2.0", "v1.2.0"] {
            let error = try #require(throws: ChangelogError.self) {
                try editor.updatedChangelog(existing: existing, newSection: section, version: version)
            }
            guard case .versionAlreadyPresent(_, let line, let reported) = error else {
                Issue.record("unexpected error \(error)")
                continue
            }
            #expect(line == 5)
            #expect(reported == heading)
            #expect(error.suggestion?.contains("nothing was written") == true)
        }
    }

    @Test("similar versions are not duplicates", arguments: ["## [1.2.0-rc.1]", "## 1.2.01", "## [11.2.0]", "### 1.2.0"])
    func similarVersion(_ heading: String) throws {
        let existing = "# Changelog\n\n" + heading + "\n"
        _ = try editor.updatedChangelog(existing: existing, newSection: section, version: "1.2.0")
    }

    @Test func unrecognisedStructureGetsTheSectionOnTop() throws {
        let existing = "Some free text\nwith no headings at all.\r\nKeep me  \n"
        let output = try editor.updatedChangelog(existing: existing, newSection: section, version: "1.2.0")
        #expect(output == section + "\n" + existing)
    }

    @Test func crlfFilesGetCRLFSections() throws {
        let existing = "# Changelog\r\n\r\n## [Unreleased]\r\n\r\n- a\r\n\r\n## [1.1.0]\r\n\r\n- b\r\n\r\n[1.1.0]: https://x\r\n"
        let output = try editor.updatedChangelog(existing: existing, newSection: section, version: "1.2.0", linkReferenceDefinition: definition)
        let crlfSection = section.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(output == "# Changelog\r\n\r\n" + crlfSection + "\r\n## [1.1.0]\r\n\r\n- b\r\n\r\n" + definition + "\r\n[1.1.0]: https://x\r\n")
        // No bare line feed anywhere.
        #expect(!output.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
    }

    @Test func existingDefinitionIsNotDuplicated() throws {
        let existing = "# Changelog\n\n## [1.1.0]\n\n[1.2.0]: https://old\n[1.1.0]: https://x\n"
        let output = try editor.updatedChangelog(existing: existing, newSection: section, version: "1.2.0", linkReferenceDefinition: definition)
        #expect(output == "# Changelog\n\n" + section + "\n## [1.1.0]\n\n[1.2.0]: https://old\n[1.1.0]: https://x\n")
    }

    @Test func unreleasedSectionCanBeRefreshed() throws {
        let existing = "# Changelog\n\n## [Unreleased]\n\n- stale\n\n## [1.1.0]\n"
        let fresh = "## [Unreleased]\n\n- fresh\n"
        let output = try editor.updatedChangelog(existing: existing, newSection: fresh, version: "Unreleased")
        #expect(output == "# Changelog\n\n## [Unreleased]\n\n- fresh\n\n## [1.1.0]\n")
    }
}
