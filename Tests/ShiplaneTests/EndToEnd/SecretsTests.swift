import Foundation
import Testing

@Suite("Secrets from the environment and dotenv files never leak", .offThePool)
struct SecretsTests {
    static let lanes = [
        "Lanes/Leak.swift": #"""
        import Shiplane

        struct Leak: Lane {
            func run(_ lane: LaneContext) async throws {
                let token = lane.environment["GITHUB_TOKEN"] ?? "unset"
                let deploy = lane.environment["DEPLOY_PASSWORD"] ?? "unset"
                lane.log("using \(token) and \(deploy)")
                try await lane.sh("sh", "-c", "echo token=$GITHUB_TOKEN; echo \(deploy) >&2; exit 3")
            }
        }
        """#,
    ]

    @Test func aFailingLaneWithTokensLeaksThemNowhere() throws {
        let repo = try repositoryWithLanes(Self.lanes)
        let fromEnvironment = "ghp_" + String(repeating: "A1b2", count: 9)
        let fromDotEnv = "correct-horse-battery-staple"
        try repo.write(".env.staging", "# deploy secrets\nDEPLOY_PASSWORD=\"\(fromDotEnv)\"\n")
        let report = repo.root + "/report.json"
        let junit = repo.root + "/junit.xml"
        let result = try repo.shiplane(
            ["leak", "--env", "staging", "--report-json", report, "--junit", junit],
            environment: ["GITHUB_TOKEN": fromEnvironment]
        )
        #expect(result.status == 1)
        #expect(result.all.contains("using *** and ***"), "\(result.all)")
        #expect(result.all.contains("token=***"))
        let channels = [
            result.stdout, result.stderr,
            String(decoding: FileManager.default.contents(atPath: report) ?? Data(), as: UTF8.self),
            String(decoding: FileManager.default.contents(atPath: junit) ?? Data(), as: UTF8.self),
        ]
        #expect(channels[2].contains("\"outcome\""), "the report was written")
        for channel in channels {
            #expect(!channel.contains(fromEnvironment))
            #expect(!channel.contains(fromDotEnv))
        }
    }

    @Test func aMissingEnvFileIsAUsageError() throws {
        let repo = try repositoryWithLanes(Self.lanes)
        let result = try repo.shiplane(["leak", "--env", "nowhere"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no file .env.nowhere"))
    }

    @Test func aMalformedEnvFileNamesTheLine() throws {
        let repo = try repositoryWithLanes(Self.lanes)
        try repo.write(".env", "GOOD=1\nthis is not an assignment\n")
        let result = try repo.shiplane(["leak"])
        #expect(result.status == 2)
        #expect(result.stderr.contains(".env:2"))
    }
}
