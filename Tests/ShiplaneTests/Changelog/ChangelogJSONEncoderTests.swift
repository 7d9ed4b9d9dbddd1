import Foundation
import Testing

@testable import Shiplane

@Suite("JSON output", .offThePool)
struct ChangelogJSONEncoderTests {
    @Test func matchesGolden() throws {
        let encoder = ChangelogJSONEncoder(links: ChangelogSamples.githubLinks)
        let data = try encoder.encode([ChangelogSamples.unreleased, ChangelogSamples.release100])
        try expectChangelogGolden(String(decoding: data, as: UTF8.self) + "\n", named: "changelog.json")
    }

    /// `--all --json` is built one release at a time; the bytes are those of encoding them all.
    @Test(arguments: [
        [ChangelogRelease](),
        [ChangelogSamples.unreleased],
        [ChangelogSamples.unreleased, ChangelogSamples.release120, ChangelogSamples.release100],
        [ChangelogRelease(title: "0.1.0", tagName: "v0.1.0", date: nil, previousTagName: nil, commits: [])],
    ])
    func releaseByReleaseGivesTheSameBytes(releases: [ChangelogRelease]) throws {
        let encoder = ChangelogJSONEncoder(links: ChangelogSamples.githubLinks)
        let whole = String(decoding: try encoder.encode(releases), as: UTF8.self)
        let streamed = ChangelogJSONEncoder.document(try releases.map(encoder.encodedRelease))
        #expect(streamed == whole)
    }

    @Test func roundTripsTheModel() throws {
        let data = try JSONEncoder().encode(ChangelogSamples.release120)
        let decoded = try JSONDecoder().decode(ChangelogRelease.self, from: data)
        #expect(decoded == ChangelogSamples.release120)
    }
}
