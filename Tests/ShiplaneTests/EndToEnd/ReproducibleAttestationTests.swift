import Foundation
import Testing

/// A lane that makes the release's supply-chain files: an archive, its SBOM and its provenance.
private let attestLane = #"""
import Shiplane
struct Attest: Lane {
    func run(_ lane: LaneContext) async throws {
        let archive = try lane.archive("VERSION", to: "dist/app.tar.gz")
        try lane.sbom(to: "dist/app.cdx.json", artifacts: [archive], version: "1.4.0")
        try lane.sbom(to: "dist/app.spdx.json", format: .spdx, artifacts: [archive], version: "1.4.0")
        try lane.provenance(for: [archive], to: "dist/app.intoto.jsonl")
    }
}
"""#

/// Item 6 of issue 40: the SBOM and provenance are files written through recorded effects, and
/// a fresh clone of the same commit makes them again with the same bytes.
@Suite("A fresh clone makes the same SBOM and provenance", .serialized, .offThePool)
struct ReproducibleAttestationTests {
    @Test func aFreshCloneMakesByteIdenticalSupplyChainFiles() async throws {
        let (repo, origin) = try releasableRepository(lane: attestLane)
        try repo.write(".gitignore", ".build/\ndist/\n")
        try repo.write("Cargo.lock", "version = 3\n\n[[package]]\nname = \"anyhow\"\nversion = \"1.0.86\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"b3d1d046238990b9cf5bcde22a3fb3584ee5cf65fb2765f454ed428c7a0063da\"\n")
        try repo.git("add", ".gitignore", "Cargo.lock")
        try repo.git("commit", "-q", "-m", "chore: lock")
        try repo.git("push", "-q", "origin", "main")
        // A fixed Ed25519 seed (base64), as a CI secret would hold it.
        let environment = ["SHIPLANE_ATTESTATION_KEY": Data(repeating: 7, count: 32).base64EncodedString()]
        let first = try await repo.shiplaneAsync(["attest"], environment: environment)
        #expect(first.status == 0, "\(first.all)")
        let names = ["app.tar.gz", "app.cdx.json", "app.spdx.json", "app.intoto.jsonl"]
        let made = names.map { FileManager.default.contents(atPath: repo.path + "/dist/" + $0) }
        #expect(made.allSatisfy { $0 != nil })
        #expect(String(decoding: made[1] ?? Data(), as: UTF8.self).contains("pkg:cargo/anyhow@1.0.86"))

        let fresh = try TemporaryRepository(commit: false)
        try fresh.git("clone", "-q", origin.path, fresh.path + "/clone")
        let clone = fresh.path + "/clone"
        // The clone's origin reads as the first checkout's does (the same URL, rewritten the same way).
        _ = try runProgram("/usr/bin/git", ["remote", "set-url", "origin", "https://github.com/acme/rocket.git"], in: clone, environment: fresh.environment)
        _ = try runProgram("/usr/bin/git", ["config", "url.\(origin.path).insteadOf", "https://github.com/acme/rocket.git"], in: clone, environment: fresh.environment)
        let again = try await runProgramAsync(shiplaneBinary, ["attest"], in: clone, environment: fresh.environment.merging(environment) { $1 })
        #expect(again.status == 0, "\(again.all)")
        for (name, bytes) in zip(names, made) {
            let remade = FileManager.default.contents(atPath: clone + "/dist/" + name)
            let firstLines = String(decoding: bytes ?? Data(), as: UTF8.self).split(separator: "\n")
            let difference = String(decoding: remade ?? Data(), as: UTF8.self).split(separator: "\n").filter { !firstLines.contains($0) }
            #expect(remade == bytes, "\(name) is byte-identical in the clone; lines that differ: \(difference)")
        }
        let dry = try await repo.shiplaneAsync(["attest", "--dry-run"], environment: environment)
        #expect(dry.status == 0, "\(dry.all)")
        #expect(!dry.all.contains(environment["SHIPLANE_ATTESTATION_KEY"] ?? "-"), "the key is never printed")
    }
}
