import Testing
@testable import Shiplane
@testable import ShiplaneCLI

/// The one lexer both lane scans walk (`LaneDiscovery`, `SigningKeyDiscovery`): comments dropped,
/// string literals kept whole with their values, whatever they hold.
@Suite("Swift lexer of lane sources", .offThePool)
struct SwiftLexerTests {
    func kinds(_ source: String) -> [SwiftToken.Kind] { SwiftLexer.tokens(of: source).map(\.kind) }

    @Test func nestedBlockCommentsAreSkippedWhole() {
        let source = """
        /* outer /* inner */ struct Hidden: Lane {} still a comment */
        /** doc /* nested
           over lines */ */ struct Shown {}
        """
        #expect(kinds(source) == [.word("struct"), .word("Shown"), .punctuation("{"), .punctuation("}")])
        #expect(SwiftLexer.tokens(of: source).first?.line == 3, "lines counted inside comments")
    }

    @Test func slashesInsideStringsAreNotComments() {
        let source = #"let url = "https://example.com/*" // sign(key: "A")"# + "\nlet b = \"*/ //\""
        #expect(kinds(source) == [
            .word("let"), .word("url"), .punctuation("="), .string("https://example.com/*"),
            .word("let"), .word("b"), .punctuation("="), .string("*/ //"),
        ])
    }

    @Test func rawStringsKeepBackslashesAndQuotes() {
        #expect(kinds(##"#"C:\path "quoted""#"##) == [.string(#"C:\path "quoted""#)])
        #expect(kinds(###"##"ends with "# not here"## x"###) == [.string("ends with \"# not here"), .word("x")])
        #expect(kinds(##"#"tab \#t done"#"##) == [.string("tab \t done")], "a raw string's own escape")
        #expect(kinds(##"#"\#(name)"#"##) == [.string(nil)], "a raw string's interpolation")
        #expect(kinds(##"#if DEBUG"##) == [.punctuation("#"), .word("if"), .word("DEBUG")], "# alone is not a raw string")
    }

    @Test func interpolationsHoldCodeWithItsOwnQuotesAndParentheses() {
        // The `")"` and `"}"` inside the interpolations end neither the literal nor the interpolation.
        let source = #"let s = "a \(f(")", x ? "}" : "{", (1 + 2))) b \("\(inner)") c"; struct After: Lane {}"#
        #expect(kinds(source) == [
            .word("let"), .word("s"), .punctuation("="), .string(nil), .punctuation(";"),
            .word("struct"), .word("After"), .punctuation(":"), .word("Lane"), .punctuation("{"), .punctuation("}"),
        ])
        #expect(kinds(#""\("/* not a comment")" done"#) == [.string(nil), .word("done")])
    }

    @Test func multiLineStringsLoseTheirIndentationAndKeepTheirLines() {
        let source = #"""
        let text = """
            line one
              "quoted" \
            continued\u{21}
            """
        let after = 1
        """#
        let tokens = SwiftLexer.tokens(of: source)
        #expect(tokens.map(\.kind) == [
            .word("let"), .word("text"), .punctuation("="), .string("line one\n  \"quoted\" continued!"),
            .word("let"), .word("after"), .punctuation("="), .word("1"),
        ])
        #expect(tokens[3].line == 1 && tokens[4].line == 6)
        #expect(kinds(#"""
        """
          a "" b \(x) \""" still in
          """ + ""
        """#) == [.string(nil), .punctuation("+"), .string("")])
    }

    @Test func escapesAreDecodedAndBackticksNameWords() {
        #expect(kinds(#""a\tb\u{41}\"c\\""#) == [.string("a\tbA\"c\\")])
        #expect(kinds(#""\q""#) == [.string(nil)], "an escape Swift does not know")
        #expect(kinds("`default` `if`") == [.word("default"), .word("if")])
        #expect(kinds("\"open\nnext") == [.string("open"), .word("next")], "a single-line literal left open ends at its line")
    }

    /// Both scans walk these tokens: a lane or a key in a string or comment is not one, a raw
    /// literal names a key, and an interpolation holding quotes does not hide what follows.
    @Test func bothScansReadTheTrickyCasesAlike() {
        let source = #"""
        import Shiplane
        /* struct InComment: Lane { } /* nested */ lane.sign([], key: "COMMENT_KEY") */
        let note = "// struct InString: Lane {} \(lane.sign([], key: "INTERPOLATED_KEY")) /*"
        struct Release: Lane {
            func run(_ lane: LaneContext) async throws {
                let label = "\(")") }"
                try lane.sign([label], format: #"minisign"#, key: #"RAW_KEY"#)
                try lane.addGitTag("v1", sign: true)
            }
        }
        struct Nightly: Lane {}
        """#
        let found = LaneDiscovery.scan([(path: "Lanes/All.swift", text: source)])
        #expect(found.lanes == ["Release", "Nightly"])
        #expect(found.locations == ["Lanes/All.swift:4", "Lanes/All.swift:11"])
        let keys = SigningKeyDiscovery.scan([(path: "Lanes/All.swift", text: source)])
        #expect(keys == [
            NamedSigningKey(.files(format: "minisign"), variable: "RAW_KEY", location: "Lanes/All.swift:7"),
            NamedSigningKey(.tag, variable: nil, location: "Lanes/All.swift:8"),
        ])
    }

    /// A generic parameter's constraint is not the type's conformance, and an attribute is not part of a name.
    @Test func conformancesAreReadAfterTheGenericClause() {
        let found = LaneDiscovery.scan([(path: "Lanes/All.swift", text: """
        struct Wrapped<T: Equatable>: Lane {}
        final class Shared: @unchecked Sendable, Shiplane.Lane {}
        """)])
        #expect(found.lanes == ["Shared"])
        #expect(found.problems == [
            "Lanes/All.swift:1:1: error: lane `Wrapped` is generic: the command line cannot choose its type parameters; make it a concrete type",
        ])
    }
}
