import Foundation
import Testing

@testable import Shiplane

@Suite("JSON output")
struct ChangelogJSONEncoderTests {
    @Test func matchesGolden() throws {
        let encoder = ChangelogJSONEncoder(links: ChangelogSamples.githubLinks)
        let data = try encoder.encode([ChangelogSamples.unreleased, ChangelogSamples.release100])
        try expectChangelogGolden(String(decoding: data, as: UTF8.self) + "\n", named: "changelog.json")
    }

    @Test func roundTripsTheModel() throws {
        let data = try JSONEncoder().encode(ChangelogSamples.release120)
        let decoded = try JSONDecoder().decode(ChangelogRelease.self, from: data)
        #expect(decoded == ChangelogSamples.release120)
    }
}
