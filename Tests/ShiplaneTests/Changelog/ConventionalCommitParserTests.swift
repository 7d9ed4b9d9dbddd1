import Testing

@testable import Shiplane

/// One message and what parsing it must give.
struct ConventionalParserCase: Sendable, CustomTestStringConvertible {
    var name: String
    var message: String
    var type: String
    var scope: String? = nil
    var description: String
    var body: String? = nil
    var footers: [ConventionalCommitFooter] = []
    var isBreaking = false
    var breakingDescription: String? = nil
    var issues: [Int] = []

    var testDescription: String { name }
}

@Suite("Conventional commit parsing", .offThePool)
struct ConventionalCommitParserTests {
    static let specExamples: [ConventionalParserCase] = [
        ConventionalParserCase(
            name: "description and breaking change footer",
            message: """
                feat: allow provided config object to extend other configs

                BREAKING CHANGE: `extends` key in config file is now used for extending other config files
                """,
            type: "feat",
            description: "allow provided config object to extend other configs",
            footers: [.init(token: "BREAKING CHANGE", value: "`extends` key in config file is now used for extending other config files")],
            isBreaking: true,
            breakingDescription: "`extends` key in config file is now used for extending other config files"),
        ConventionalParserCase(
            name: "! to draw attention to breaking change",
            message: "feat!: send an email to the customer when a product is shipped",
            type: "feat", description: "send an email to the customer when a product is shipped",
            isBreaking: true, breakingDescription: "send an email to the customer when a product is shipped"),
        ConventionalParserCase(
            name: "scope and !",
            message: "feat(api)!: send an email to the customer when a product is shipped",
            type: "feat", scope: "api", description: "send an email to the customer when a product is shipped",
            isBreaking: true, breakingDescription: "send an email to the customer when a product is shipped"),
        ConventionalParserCase(
            name: "both ! and BREAKING CHANGE footer",
            message: "chore!: drop support for Node 6\n\nBREAKING CHANGE: use JavaScript features not available in Node 6.",
            type: "chore", description: "drop support for Node 6",
            footers: [.init(token: "BREAKING CHANGE", value: "use JavaScript features not available in Node 6.")],
            isBreaking: true, breakingDescription: "use JavaScript features not available in Node 6."),
        ConventionalParserCase(
            name: "no body", message: "docs: correct spelling of CHANGELOG",
            type: "docs", description: "correct spelling of CHANGELOG"),
        ConventionalParserCase(
            name: "scope", message: "feat(lang): add Polish language",
            type: "feat", scope: "lang", description: "add Polish language"),
        ConventionalParserCase(
            name: "multi-paragraph body and multiple footers",
            message: """
                fix: prevent racing of requests

                Introduce a request id and a reference to latest request. Dismiss
                incoming responses other than from latest request.

                Remove timeouts which were used to mitigate the racing issue but are
                obsolete now.

                Reviewed-by: Z
                Refs: #123
                """,
            type: "fix", description: "prevent racing of requests",
            body: """
                Introduce a request id and a reference to latest request. Dismiss
                incoming responses other than from latest request.

                Remove timeouts which were used to mitigate the racing issue but are
                obsolete now.
                """,
            footers: [.init(token: "Reviewed-by", value: "Z"), .init(token: "Refs", value: "#123")],
            issues: [123]),
        ConventionalParserCase(
            name: "revert with commit refs",
            message: "revert: let us never again speak of the noodle incident\n\nRefs: 676104e, a215868",
            type: "revert", description: "let us never again speak of the noodle incident",
            footers: [.init(token: "Refs", value: "676104e, a215868")]),
        ConventionalParserCase(
            name: "Refs with several issues",
            message: "fix(parser): handle tabs\n\nRefs: #1, #2",
            type: "fix", scope: "parser", description: "handle tabs",
            footers: [.init(token: "Refs", value: "#1, #2")], issues: [1, 2]),
        ConventionalParserCase(
            name: "hash separator, BREAKING-CHANGE synonym, multi-line footer value",
            message: "perf: cache lookups (#7)\n\nCloses #42\nBREAKING-CHANGE: the cache\n  is now global\n\n  and shared\nSigned-off-by: A <a@b.c>",
            type: "perf", description: "cache lookups (#7)",
            footers: [
                .init(token: "Closes", separator: .hash, value: "42"),
                .init(token: "BREAKING-CHANGE", value: "the cache\n  is now global\n\n  and shared"),
                .init(token: "Signed-off-by", value: "A <a@b.c>"),
            ],
            isBreaking: true, breakingDescription: "the cache\n  is now global\n\n  and shared", issues: [7, 42]),
        ConventionalParserCase(
            name: "uppercase type, CRLF endings, leading blank lines",
            message: "\r\n\r\nFEAT(Core): Add thing\r\n\r\nBody line\r\n\r\nFixes: #9\r\n",
            type: "feat", scope: "Core", description: "Add thing", body: "Body line",
            footers: [.init(token: "Fixes", value: "#9")], issues: [9]),
        ConventionalParserCase(
            name: "footer-like text inside a body paragraph stays body",
            message: "fix: x\n\nSee the docs\nNote: this is body text",
            type: "fix", description: "x", body: "See the docs\nNote: this is body text"),
        ConventionalParserCase(
            name: "URL is not a footer; cross-repository refs are not issues",
            message: "docs: link to o/r#5 and &#39;\n\nhttps://example.com: x",
            type: "docs", description: "link to o/r#5 and &#39;", body: "https://example.com: x"),
        ConventionalParserCase(
            name: "empty scope counts as no scope; BREAKING CHANGES is not a footer, lowercase is not breaking",
            message: "feat(): x\n\nBREAKING CHANGES: not the spec token\n\nbreaking-change: lower",
            type: "feat", description: "x", body: "BREAKING CHANGES: not the spec token",
            footers: [.init(token: "breaking-change", value: "lower")]),
    ]

    @Test("spec examples and variants", arguments: specExamples)
    func parses(_ example: ConventionalParserCase) throws {
        let commit = try #require(ConventionalCommit(parsing: example.message))
        #expect(commit.type == example.type)
        #expect(commit.scope == example.scope)
        #expect(commit.description == example.description)
        #expect(commit.body == example.body)
        #expect(commit.footers == example.footers)
        #expect(commit.isBreaking == example.isBreaking)
        #expect(commit.breakingDescription == example.breakingDescription)
        #expect(commit.issueReferences == example.issues)
    }

    @Test(
        "non-conventional messages give nil",
        arguments: [
            "", "\n\n\n", "\r\n", "   ", "Merge pull request #12 from o/branch", "Update README.md",
            "feat:missing space", "feat: ", "feat:   ", "feat (scope): space before scope", "feat(scope: unclosed",
            "feat(a(b)): nested", ": no type", "1feat: starts with digit", "feat!!: two bangs",
            "✨ feat: emoji first", "feat\u{301}: combining mark", "Revert \"feat: x\"", "feat", "feat()",
        ])
    func rejects(_ message: String) {
        #expect(ConventionalCommit(parsing: message) == nil)
    }

    @Test func bodyParagraphThatLooksLikeAFooterStartsTheFooters() throws {
        let commit = try #require(ConventionalCommit(parsing: "fix: x\n\nbody\n\nTicket: A-1\n\nmore text"))
        #expect(commit.body == "body")
        #expect(commit.footers == [.init(token: "Ticket", value: "A-1\n\nmore text")])
    }

    @Test func footerDirectlyAfterHeaderIsAccepted() throws {
        let commit = try #require(ConventionalCommit(parsing: "feat: x\nBREAKING CHANGE: y"))
        #expect(commit.isBreaking)
        #expect(commit.breakingDescription == "y")
        #expect(commit.body == nil)
    }

    @Test func issueNumbersAreDeduplicatedAndBounded() throws {
        let commit = try #require(ConventionalCommit(parsing: "fix: #3 #3 #12ab #1234567890123456789 #4\n\nFixes #4\nRefs: #5"))
        #expect(commit.issueReferences == [3, 4, 5])
    }

    @Test func hugeMessageParses() throws {
        let longLine = String(repeating: "word ", count: 200_000)
        let message = "feat(big): " + longLine + "\n\n" + String(repeating: "line\n", count: 100_000) + "\nRefs: #1"
        let commit = ConventionalCommit(parsing: message)
        #expect(commit?.issueReferences == [1])
        #expect(commit?.scope == "big")
    }
}
