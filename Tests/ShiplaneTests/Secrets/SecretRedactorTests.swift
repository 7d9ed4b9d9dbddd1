import Foundation
import Testing
@testable import Shiplane

@Suite("Secret redaction", .offThePool)
struct SecretRedactorTests {
    @Test(arguments: [
        ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here", "token *** here"),
        ("gho_abcdefghijklmnopqrstuvwxyz0123", "***"),
        ("x=ghs_abcdefghijklmnopqrstuvwxyz0123;", "x=***;"),
        ("(ghu_abcdefghijklmnopqrstuvwxyz0123)", "(***)"),
        ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "***"),
        ("slack xoxb-1234-5678-abcdefABCDEF ok", "slack *** ok"),
        ("xoxp-1234567890-abcdef", "***"),
        ("url https://hooks.slack.com/services/T000/B000/XXXXXXXX done", "url https://hooks.slack.com/services/*** done"),
        ("Authorization: Bearer abc.def-ghi_jkl", "Authorization: Bearer ***"),
        ("authorization: bearer eyJhbGciOi.payload.sig", "authorization: bearer ***"),
        ("clone https://bob:hunter2@github.com/acme/rocket.git", "clone https://***@github.com/acme/rocket.git"),
        ("https://x-access-token:ghs_abcdefghijklmnopqrstuv@github.com/a/b", "https://***@github.com/a/b"),
    ])
    func redactsKnownTokenShapes(input: String, expected: String) {
        #expect(SecretRedactor().redact(input) == expected)
    }

    @Test(arguments: [
        "ghp_ is a prefix", "the weather is fine", "see https://github.com/acme/rocket", "mail bob@example.com",
        "thoughtful xoxb-", "bearer", "aghp_abcdefghijklmnopqrstuvwxyz0123456789",
    ])
    func leavesOrdinaryTextAlone(input: String) {
        #expect(SecretRedactor().redact(input) == input)
    }

    @Test func redactsConfiguredSecretsLongestFirstAndIgnoresShortOnes() {
        let redactor = SecretRedactor(secrets: ["hunter2", "hunter2-extended", "abc", ""])
        #expect(redactor.secrets == ["hunter2-extended", "hunter2"])
        #expect(redactor.redact("a hunter2-extended b hunter2 c abc") == "a *** b *** c abc")
    }

    /// A secret holding `"`, `\\` or `/` (a base64 key, a password) is found in the form a JSON
    /// document — the run record, a JSON report — writes it, slashes escaped or not; registered
    /// while the run goes too.
    @Test func redactsSecretsAsJSONWritesThem() throws {
        let secret = "pa\"ss\\wo/rd+K9"
        let runtime = "rt/\"x\\9/Zq"
        let redactor = SecretRedactor(secrets: [secret])
        RuntimeSecrets.register([runtime])
        for format in [JSONEncoder.OutputFormatting(), .withoutEscapingSlashes, [.prettyPrinted, .sortedKeys]] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = format
            let text = String(decoding: try encoder.encode(["output": "token \(secret) and \(runtime)", "line": "a\n\(secret)"]), as: UTF8.self)
            #expect(text.contains("pa\\\"ss"), "the check can fail: the encoded text holds the escaped form")
            let redacted = redactor.redact(text)
            #expect(!redacted.contains("wo") && !redacted.contains("Zq"), "\(redacted)")
            #expect(redacted.components(separatedBy: SecretRedactor.mask).count - 1 == 3, "\(redacted)")
        }
    }

    @Test func redactsErrorTrees() {
        let secret = "s3cr3t-value-123"
        let error = ShiplaneError("failed with \(secret)", info: [("header", "Bearer \(secret)")], suggestion: "rotate \(secret)",
                                  underlying: [ShiplaneError("inner \(secret)"), CocoaError(.fileNoSuchFile)])
        let redacted = SecretRedactor(secrets: [secret]).redact(error)
        let text = allText(of: redacted)
        #expect(!text.contains(secret))
        #expect(redacted.message == "failed with ***")
        #expect(redacted.underlyingErrors.count == 2)
    }

    /// A large log (about 5.6 MB) is redacted whole: every token in every line. (No timing is
    /// asserted: the suite runs beside others on a loaded machine; `Scripts/bench` measures speed.)
    @Test func redactsEveryLineOfLargeText() {
        let line = "2024-01-01 step ok: uploaded app.tar.gz to https://uploads.github.com/repos/acme/rocket with token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n"
        let text = String(repeating: line, count: 40_000)
        let redactor = SecretRedactor(secrets: ["configured-secret-1", "another-secret-22"])
        let result = redactor.redact(text)
        #expect(!result.contains("ghp_abc"))
        #expect(result.components(separatedBy: "\n").count == 40_001)
        #expect(result.components(separatedBy: "with token ").count - 1 == 40_000)
        #expect(result.utf8.count < text.utf8.count)
    }
}
