import Foundation
import Testing
@testable import Shiplane

@Suite("OCI image: reproducible bytes, image names, registry challenges", .offThePool)
struct OCIImageTests {
    private func folder() throws -> String {
        let path = NSTemporaryDirectory() + "shiplane-oci-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private let settings = OCIImage.Settings(os: "linux", architecture: "amd64", variant: nil, entrypoint: ["/usr/local/bin/app"],
                                             labels: ["org.opencontainers.image.version": "1.2.0"])

    @Test func theSameFilesGiveTheSameDigestsWhateverTheirOrderAndTimes() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("binary".utf8).write(to: URL(fileURLWithPath: root + "/app"))
        try Data("docs".utf8).write(to: URL(fileURLWithPath: root + "/README"))
        let files = [OCIImage.File(imagePath: "/usr/local/bin/app", source: root + "/app"), OCIImage.File(imagePath: "/etc/README", source: root + "/README")]
        try FileManager.default.createDirectory(atPath: root + "/a", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/b", withIntermediateDirectories: true)
        let first = try OCIImage.build(files: files, settings: settings, modificationTime: 0, in: root + "/a")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: root + "/app")
        let second = try OCIImage.build(files: files.reversed(), settings: settings, modificationTime: 0, in: root + "/b")
        #expect(first.manifestDigest == second.manifestDigest && first.layer.digest == second.layer.digest)
        #expect(first.entries == ["/etc", "/etc/README", "/usr", "/usr/local", "/usr/local/bin", "/usr/local/bin/app"])
        let gzip = try Data(contentsOf: URL(fileURLWithPath: root + "/a/layer.tar.gz"))
        #expect(Array(gzip.prefix(10)) == [0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff], "no timestamp, no name")
        let config = String(decoding: first.configBytes, as: UTF8.self)
        #expect(config.contains(#""diff_ids":["\#(first.diffID)"]"#) && config.contains(#""Entrypoint":["/usr/local/bin/app"]"#), "\(config)")
        #expect(!config.contains("created"))
        let manifest = String(decoding: first.manifest, as: UTF8.self)
        #expect(manifest.contains(first.config.digest) && manifest.contains(first.layer.digest) && manifest.contains(#""schemaVersion":2"#))
        // Another file's bytes: another digest.
        try Data("binary2".utf8).write(to: URL(fileURLWithPath: root + "/app"))
        try FileManager.default.createDirectory(atPath: root + "/c", withIntermediateDirectories: true)
        #expect(try OCIImage.build(files: files, settings: settings, modificationTime: 0, in: root + "/c").manifestDigest != first.manifestDigest)
    }

    @Test func badPathsAreAllNamedBeforeAnythingIsMade() throws {
        let root = try folder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/app"))
        let files = [OCIImage.File(imagePath: "usr/bin/app", source: root + "/app"), OCIImage.File(imagePath: "/bin/../etc", source: root + "/app"),
                     OCIImage.File(imagePath: "/bin/app", source: root + "/missing")]
        #expect { try OCIImage.build(files: files, settings: settings, modificationTime: 0, in: root) } throws: { error in
            let text = allText(of: error)
            return text.contains("usr/bin/app is not an absolute path") && text.contains("/bin/../etc") && text.contains("missing is not a file")
        }
    }

    @Test(arguments: [
        ("ghcr.io/acme/app", "https://ghcr.io", "acme/app"),
        ("127.0.0.1:5000/app", "http://127.0.0.1:5000", "app"),
        ("localhost:5000/acme/app", "http://localhost:5000", "acme/app"),
        ("acme/app", "https://registry-1.docker.io", "acme/app"),
        ("app", "https://registry-1.docker.io", "library/app"),
    ])
    func imageNames(reference: String, base: String, repository: String) throws {
        let target = try #require(RegistryTarget.parse(reference))
        #expect(target.base == base && target.repository == repository)
    }

    @Test func malformedImageNamesAreRefused() {
        for reference in ["ghcr.io/Acme/app", "ghcr.io/acme/app:1.0", "ghcr.io//app", "app@sha256:00"] {
            #expect(RegistryTarget.parse(reference) == nil, "\(reference)")
        }
    }

    @Test func challengesParseAsRFC9110Says() {
        let bearer = RegistryClient.parseChallenge(#"Bearer realm="https://ghcr.io/token",service="ghcr.io",scope="repository:acme/app:pull""#)
        #expect(bearer.scheme == "bearer")
        #expect(bearer.parameters == ["realm": "https://ghcr.io/token", "service": "ghcr.io", "scope": "repository:acme/app:pull"])
        let basic = RegistryClient.parseChallenge(#"Basic realm="a \"quoted\" realm", charset=UTF-8"#)
        #expect(basic.scheme == "basic" && basic.parameters == ["realm": #"a "quoted" realm"#, "charset": "UTF-8"])
    }
}
