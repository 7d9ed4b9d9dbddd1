import Foundation
import Testing

@testable import Shiplane

@Suite("Markdown rendering", .offThePool)
struct MarkdownChangelogRendererTests {
    @Test func documentWithLinksMatchesGolden() throws {
        let renderer = MarkdownChangelogRenderer(links: ChangelogSamples.githubLinks)
        let output = renderer.renderDocument([ChangelogSamples.unreleased, ChangelogSamples.release120, ChangelogSamples.release100])
        try expectChangelogGolden(output, named: "document-github.md")
    }

    @Test func sectionWithoutLinksMatchesGolden() throws {
        let configuration = ChangelogConfiguration(hiddenTypeHandling: .miscellaneous, nonConventional: .drop)
        let output = MarkdownChangelogRenderer(configuration: configuration).renderSection(ChangelogSamples.release120)
        try expectChangelogGolden(output, named: "section-plain.md")
    }

    @Test func groupOrderPutsBreakingFirstThenConfiguredOrder() {
        let groups = ChangelogSamples.release120.groups(configuration: .init())
        #expect(groups.map(\.title) == ["⚠ BREAKING CHANGES", "Features", "Bug Fixes", "Performance", "Reverts", "Documentation", "Other"], "wip: is no conventional type, so it is Other, not Miscellaneous")
        #expect(groups.first?.commits.map(\.summary) == ["feat(api)!: remove the v1 endpoints", "build!: require Swift 6"])
        #expect(groups.flatMap(\.commits).count == 11, "the chore and the merge commit are left out")
    }

    @Test(
        "escaping keeps structure and readability",
        arguments: [
            ("# title", "\\# title"),
            ("- item", "\\- item"),
            ("12. ordered", "12\\. ordered"),
            ("a <b> c", "a &lt;b&gt; c"),
            ("[x](y)", "\\[x\\](y)"),
            ("2 * 3", "2 \\* 3"),
            ("`code` and snake_case", "`code` and snake_case"),
            ("line\nbreak\r\nhere", "line break here"),
            ("back\\[slash", "back\\\\\\[slash"),
            ("```fence", "\\```fence"),
            ("émoji 👍🏽 #12", "émoji 👍🏽 #12"),
        ])
    func escapes(_ input: String, _ expected: String) {
        #expect(MarkdownEscaping.inline(input) == expected)
    }

    @Test func longSummariesAreCutWithAnEllipsis() {
        let cut = MarkdownEscaping.truncated(String(repeating: "é", count: 500), limit: 300)
        #expect(cut.count == 301)
        #expect(cut.hasSuffix("…"))
        #expect(MarkdownEscaping.truncated("short", limit: 300) == "short")
    }

    /// Speed is measured by Scripts/bench, not asserted here; this checks that a large history
    /// renders completely (every commit becomes a bullet).
    @Test func hundredThousandCommitsRender() {
        let messages = ["feat(core): add a thing\n\nCloses #12", "fix: repair it", "chore: tidy", "Update docs", "feat!: break it"]
        let date = Date(timeIntervalSince1970: 0)
        let commits = (0..<100_000).map { index in
            ChangelogCommit(
                id: String(repeating: "a", count: 40), message: messages[index % messages.count],
                authorName: "A", authorEmail: "a@b", date: date)
        }
        let release = ChangelogRelease(title: "2.0.0", tagName: "v2.0.0", date: date, previousTagName: "v1.0.0", commits: commits)
        let output = MarkdownChangelogRenderer(links: ChangelogSamples.githubLinks).renderSection(release)
        // One message in five is a `chore`, hidden by default: 80,000 bullets.
        #expect(output.components(separatedBy: "\n- ").count - 1 == 80_000)
    }
}
