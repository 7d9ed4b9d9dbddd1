import Foundation
import Testing
@testable import Shiplane

@Suite("dotenv files", .offThePool)
struct DotEnvTests {
    @Test func parsesTheSupportedForms() throws {
        let text = """
        # comment
        PLAIN=value
        export EXPORTED=yes
          SPACED = padded value   # trailing comment
        SINGLE='literal \\n $(whoami) # not a comment'
        DOUBLE="line1\\nline2 \\"quoted\\" \\\\ \\$HOME"
        EMPTY=
        HASH=abc#def
        URL=https://example.com/a?b=c
        COMMAND=$(touch /tmp/shiplane-should-not-exist)

        """
        let env = try DotEnv.parse(text).values
        #expect(env["PLAIN"] == "value")
        #expect(env["EXPORTED"] == "yes")
        #expect(env["SPACED"] == "padded value")
        #expect(env["SINGLE"] == "literal \\n $(whoami) # not a comment")
        #expect(env["DOUBLE"] == "line1\nline2 \"quoted\" \\ $HOME")
        #expect(env["EMPTY"] == "")
        #expect(env["HASH"] == "abc#def")
        #expect(env["URL"] == "https://example.com/a?b=c")
        #expect(env["COMMAND"] == "$(touch /tmp/shiplane-should-not-exist)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/shiplane-should-not-exist"))
    }

    @Test func reportsEveryMalformedLineWithFileAndLine() {
        let text = "GOOD=1\njust words\n=nokey\nBAD KEY=1\nQUOTE=\"open\nTAIL='x' y\n"
        #expect {
            try DotEnv.parse(text, file: "/repo/.env")
        } throws: { error in
            guard let dotenv = error as? DotEnvError else { return false }
            return dotenv.problems.map(\.line) == [2, 3, 4, 5, 6]
                && dotenv.info.first?.key == "/repo/.env:2"
                && dotenv.message == "5 malformed lines in dotenv files"
        }
    }

    @Test func laterFilesOverrideEarlierOnes() async throws {
        try await withTemporaryDirectory { folder in
            try writeFile(folder, ".env", "A=base\nB=base\n")
            try writeFile(folder, ".env.ci", "B=ci\nC=ci\n")
            let env = try DotEnv.load(directory: folder, environment: "ci").values
            #expect(env == ["A": "base", "B": "ci", "C": "ci"])
            #expect(try DotEnv.load(directory: folder).values == ["A": "base", "B": "base"])
            #expect(try DotEnv.load(directory: folder.appendingPathComponent("none")).values.isEmpty)
        }
    }

    /// A NUL byte cannot reach a process environment (nor the session the supervisor hands its
    /// lane program, whose fields it separates): the line is malformed, and says why.
    @Test func aValueHoldingANulByteIsAMalformedLine() {
        #expect {
            try DotEnv.parse("GOOD=1\nTOKEN=ab\u{0}cd\nQUOTED=\"x\u{0}y\"\n", file: "/repo/.env")
        } throws: { error in
            guard let dotenv = error as? DotEnvError else { return false }
            return dotenv.problems.map(\.line) == [2, 3]
                && allText(of: error).contains("the value of TOKEN holds a NUL byte, which no environment variable can hold")
                && !allText(of: error).contains("ab\u{0}cd")
        }
    }

    @Test func malformedValuesAreNotEchoedInErrors() {
        do {
            _ = try DotEnv.parse("TOKEN=\"ghp_unterminatedSecretValue")
            Issue.record("expected an error")
        } catch {
            #expect(!allText(of: error).contains("unterminatedSecretValue"))
        }
    }
}
