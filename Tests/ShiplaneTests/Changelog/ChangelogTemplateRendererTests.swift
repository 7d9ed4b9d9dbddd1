import Testing

@testable import Shiplane

@Suite("Mustache templates", .offThePool)
struct ChangelogTemplateRendererTests {
    static let template = """
        {{#releases}}
        # {{title}}{{#date}} ({{.}}){{/date}}{{#compareURL}} <{{.}}>{{/compareURL}}
        {{#groups}}
        ## {{title}}{{#isBreaking}} (!){{/isBreaking}}
        {{#commits}}
        * {{#scope}}[{{.}}] {{/scope}}{{description}}{{^isConventional}}{{summary}}{{/isConventional}} — {{shortId}} by {{authorName}}{{#issues}} #{{number}}{{/issues}}
        {{/commits}}
        {{/groups}}
        {{/releases}}
        Raw & unescaped: {{#release}}{{#groups}}{{#commits}}{{{markdown}}}|{{/commits}}{{/groups}}{{/release}}

        """

    @Test func rendersReleasesGroupsAndCommits() throws {
        let renderer = try ChangelogTemplateRenderer(template: Self.template, links: ChangelogSamples.githubLinks)
        let output = renderer.render([ChangelogSamples.release120, ChangelogSamples.release100])
        try expectChangelogGolden(output, named: "template-output.md")
    }

    @Test func singleReleaseIsAvailableAsRelease() throws {
        let renderer = try ChangelogTemplateRenderer(template: "{{release.title}}/{{#release.commits}}{{type}}{{/release.commits}}")
        #expect(renderer.render(ChangelogSamples.unreleased) == "Unreleased/fix")
    }

    @Test(
        "syntax errors report the template line",
        arguments: [
            ("line one\n{{#releases}}\n{{title}}\n", 4),
            ("a\nb\n{{#x}}{{/y}}\n", 3),
            ("{{unclosed", 1),
        ])
    func syntaxError(_ template: String, _ line: Int) throws {
        let error = try #require(throws: ChangelogError.self) {
            try ChangelogTemplateRenderer(template: template)
        }
        guard case .templateSyntax(_, let reportedLine, _, _) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(reportedLine == line)
        #expect(error.message.contains("line \(line)"))
        #expect(error.suggestion != nil)
    }
}
