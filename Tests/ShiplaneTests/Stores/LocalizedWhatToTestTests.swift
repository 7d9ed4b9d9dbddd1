import Foundation
import Testing
@testable import Shiplane

/// Uploads with What to Test per locale.
struct ShipLocalizedToTestFlight: Lane {
    @Option var ipa = ""

    func run(_ lane: LaneContext) async throws {
        let notes = try lane.storeNotes(for: .testFlight, texts: ["en-US": "## New\n- **Faster** launch", "de-DE": "- Schneller starten"])
        _ = try await lane.uploadToTestFlight(ipa: ipa, localizedWhatsNew: notes, usesNonExemptEncryption: false,
                                              processingTimeout: 5, pollInterval: 0.001)
    }
}

@Suite("What to Test per locale through the App Store Connect stand-in", .serialized, .offThePool)
struct LocalizedWhatToTestTests {
    @Test func everyLocaleGetsItsPlainNotes() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        try await withTemporaryDirectory { folder in
            try StoreFixtures.makeIPA(at: folder.path + "/Rocket.ipa", payloadBytes: 200_000)
            let (result, messages) = await runStoreLane(try lane(ShipLocalizedToTestFlight.self, ["--ipa", "Rocket.ipa"]), folder: folder.path,
                                                        variables: StoreFixtures.appleEnvironment(apiURL: apple.baseURL))
            #expect(result.succeeded, "\(allText(result.failure))")
            let build = try #require(apple.allBuilds.values.first)
            #expect(build.whatsNew == ["en-US": "New\n• Faster launch", "de-DE": "• Schneller starten"])
            #expect(messages.contains("What to Test set (de-DE)") && messages.contains("What to Test set (en-US)"), "\(messages)")
        }
    }
}
