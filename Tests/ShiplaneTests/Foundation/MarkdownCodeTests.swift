import Foundation
import Testing
@testable import Shiplane
@testable import ShiplaneCLI

@Suite("Markdown code in the step summary holds any text", .offThePool)
struct MarkdownCodeTests {
    @Test(arguments: [
        ("1.4.0", "`1.4.0`"),
        ("a`b", "``a`b``"),
        ("`quoted`", "`` `quoted` ``"),
        ("x``y", "```x``y```"),
    ])
    func codeSpansAreFencedLongerThanTheirBackticks(text: String, span: String) {
        #expect(codeSpan(text) == span)
    }

    @Test func theOutputsLineKeepsAValueWithABacktickWhole() {
        var result = RenderingTests.failedRun
        result.failure = nil
        result.outputs = [(name: "notes", value: "fix `sh` quoting"), (name: "version", value: "1.4.0")]
        let summary = CIPlatform.summary(for: result, exitCode: 0, redactor: SecretRedactor())
        #expect(summary.contains("Outputs: `notes` = ``fix `sh` quoting``, `version` = `1.4.0`"), "\(summary)")
    }

    @Test func anErrorWithAFenceInItCannotCloseTheSummarysFence() {
        var result = RenderingTests.failedRun
        result.failure?.causes = [ShiplaneError("the template has ``` in it")]
        let summary = CIPlatform.summary(for: result, exitCode: 1, redactor: SecretRedactor())
        #expect(summary.contains("\n````\n"), "\(summary)")
    }

    @Test func oneStepIsSingular() {
        var result = RenderingTests.failedRun
        result.steps = Array(result.steps.prefix(1))
        #expect(SummaryTable.lines(for: result).last?.hasSuffix("(1 step)") == true)
        #expect(counted(1, "commit") == "1 commit" && counted(0, "commit") == "0 commits" && counted(2, "step") == "2 steps")
    }
}
