import Testing
@testable import Shiplane

@Suite("Build numbers", .offThePool)
struct BuildNumberTests {
    @Test(arguments: [("41", "42"), ("9", "10"), ("0099", "0100"), ("2024.5.9", "2024.5.10"), ("99999999999999999999", "100000000000000000000")])
    func increments(_ current: String, _ next: String) throws {
        #expect(try BuildNumber.incremented(current) == next)
    }

    @Test(arguments: ["", "abc", "1.2b", "1..2", ".1", "1.", "-1", "1 2"])
    func rejectsNonNumericValues(_ value: String) throws {
        let error = VersioningTestSupport.error(BuildNumberError.self) { _ = try BuildNumber.incremented(value) }
        #expect(error?.message.contains("'\(value)'") == true)
        #expect(error?.message.contains("increment") == true)
        #expect(throws: BuildNumberError.self) { try BuildNumber.validated(value) }
    }

    @Test func validationNamesTheCharacter() throws {
        let error = VersioningTestSupport.error(BuildNumberError.self) { try BuildNumber.validated("12a") }
        #expect(error?.message.contains("'a' at position 3") == true)
        #expect(try BuildNumber.validated("1.2.3") == "1.2.3")
    }

    @Test func readsTheFirstCIVariablePresent() throws {
        #expect(try BuildNumber.fromCI(environment: [:]) == nil)
        #expect(try BuildNumber.fromCI(environment: ["PATH": "/bin"]) == nil)
        let env = ["CIRCLE_BUILD_NUM": "7", "BUILD_NUMBER": "12", "GITHUB_RUN_NUMBER": ""]
        #expect(try BuildNumber.fromCI(environment: env) == BuildNumber.FromCI(variable: "BUILD_NUMBER", value: "12"))
        #expect(try BuildNumber.fromCI(environment: ["BITRISE_BUILD_NUMBER": "99", "CI_PIPELINE_IID": "5"])?.variable == "CI_PIPELINE_IID")
        #expect(try BuildNumber.fromCI(environment: ["GITHUB_RUN_NUMBER": "3", "BUILD_NUMBER": "4"])?.value == "3")
        let error = VersioningTestSupport.error(BuildNumberError.self) { _ = try BuildNumber.fromCI(environment: ["GITHUB_RUN_NUMBER": "abc"]) }
        #expect(error?.variable == "GITHUB_RUN_NUMBER")
    }
}
