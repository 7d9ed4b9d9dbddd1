import Foundation
import Testing
@testable import Shiplane

/// A source archive larger than what a publisher may hold in memory: the built `shiplane`
/// (supervisor and lane program, measured together by `/usr/bin/time -v`) publishes it signed
/// and publishes it again, and neither run's peak resident memory reaches the archive's size (the
/// lane program compiled beforehand, by a dry run) —
/// the archive is hashed, signed, sent and (on the re-run) downloaded as a stream.
/// `SHIPLANE_REGISTRY_MEMORY_MIB` sets the package's size (default 192 MiB; 1024 for the
/// README's figure).
@Suite("Swift package registry: a large source archive is hashed, signed, sent and downloaded in constant memory", .serialized, .offThePool)
struct SwiftRegistryMemoryTests {
    /// The `Maximum resident set size` GNU time reports, in bytes.
    static func peak(_ output: String) -> Int? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("Maximum resident set size (kbytes):") }),
              let kilobytes = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else { return nil }
        return kilobytes * 1024
    }

    @Test func aLargeSignedArchiveNeverSitsWholeInMemory() async throws {
        let mebibytes = Int(ProcessInfo.processInfo.environment["SHIPLANE_REGISTRY_MEMORY_MIB"] ?? "") ?? 192
        let registry = FakeSwiftRegistry(bodyLimit: (mebibytes + 64) << 20)
        try await registry.start()
        defer { registry.stop() }
        let repo = try SwiftRegistrySigningTests.smallPackage()
        // Random bytes, which deflate cannot shrink: the archive is about the files' size.
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        let block = random.readData(ofLength: 16 << 20)
        try random.close()
        try FileManager.default.createDirectory(atPath: repo.path + "/Sources/Rocket/Resources", withIntermediateDirectories: true)
        for index in 0..<max(1, mebibytes / 16) {
            var file = Data("\(index)\n".utf8)
            file.append(block)
            try file.write(to: URL(fileURLWithPath: repo.path + "/Sources/Rocket/Resources/blob-\(index).bin"))
        }
        try repo.git("add", ".")
        try repo.git("commit", "-q", "-m", "feat: large resources")
        let (key, chain) = try SwiftRegistrySigningTests.certificatePEMs("good", in: repo.root, extendedKeyUsage: "codeSigning")
        let environment = repo.environment.merging([
            "REGISTRY": registry.baseURL, "SWIFT_REGISTRY_SIGNING_KEY": key, "SWIFT_REGISTRY_CERTIFICATE_CHAIN": chain,
        ]) { $1 }

        // The lane program is compiled first (the compiler's own memory is not the publisher's): a dry run sends nothing.
        let dryRun = try await runProgramAsync(shiplaneBinary, ["publish", "--dry-run"], in: repo.path, environment: environment, timeout: 1200)
        #expect(dryRun.status == 0 && registry.puts == 0, "\(dryRun.all)")

        let published = try await runProgramAsync("/usr/bin/time", ["-v", shiplaneBinary, "publish"], in: repo.path, environment: environment, timeout: 1200)
        #expect(published.status == 0, "\(published.all)")
        let release = try #require(registry.release("acme.Rocket", "1.2.0"), "\(registry.log)")
        let size = release.archive.count
        #expect(size > mebibytes << 20, "the archive holds the files whole: \(size) bytes")
        let first = try #require(Self.peak(published.all), "\(published.all)")

        // ECDSA signatures differ each time: the re-run downloads the published archive to keep its manifest signatures.
        let again = try await runProgramAsync("/usr/bin/time", ["-v", shiplaneBinary, "publish"], in: repo.path, environment: environment, timeout: 1200)
        #expect(again.status == 0 && again.all.contains("nothing sent"), "\(again.all)")
        #expect(registry.puts == 1)
        let second = try #require(Self.peak(again.all), "\(again.all)")
        print("SwiftRegistryMemoryTests: archive \(size) bytes; peak RSS \(first / 1024) KiB publishing, \(second / 1024) KiB re-running")
        #expect(first < size && second < size, "peak RSS \(first) and \(second) bytes against an archive of \(size)")
    }
}
