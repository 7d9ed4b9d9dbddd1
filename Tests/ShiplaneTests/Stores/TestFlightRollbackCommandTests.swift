import Foundation
import Testing

/// `shiplane rollback` after a TestFlight run whose build Apple accepted: the build stays, and
/// the command says so instead of "Rolled back completely."
@Suite("TestFlight: shiplane rollback says what stays", .serialized, .offThePool)
struct TestFlightRollbackCommandTests {
    @Test func anAcceptedBuildIsNamedAsStaying() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let repo = try TemporaryRepository()
        try repo.write(".gitignore", "build/\n")
        try repo.write("Lanes/Ship.swift", """
        import Shiplane
        struct Ship: Lane {
            func run(_ lane: LaneContext) async throws {
                try await lane.uploadToTestFlight(ipa: "build/Rocket.ipa", processingTimeout: 5, pollInterval: 0.001)
                try await lane.sh("false")
            }
        }
        """)
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "chore: lanes")
        try StoreFixtures.makeIPA(at: repo.path + "/build/Rocket.ipa")
        let environment = StoreFixtures.appleEnvironment(apiURL: apple.baseURL)
        let failed = try await repo.shiplaneAsync(["ship", "--no-rollback"], environment: environment)
        #expect(failed.status != 0, "\(failed.all)")
        #expect(apple.allBuilds.count == 1, "\(failed.all)")
        let rollback = try await repo.shiplaneAsync(["rollback"], environment: environment)
        #expect(rollback.status == 0, "\(rollback.all)")
        #expect(!rollback.all.contains("Rolled back completely."), "\(rollback.all)")
        #expect(rollback.all.contains("a build cannot be deleted, so it stays"), "\(rollback.all)")
        #expect(apple.allBuilds.count == 1)
    }
}
