import Foundation
import Testing
@testable import Shiplane

/// Every fixture lock file, read.
private func allFixtureLockFiles() throws -> [LockFileContents] {
    try [
        ("swift-v1", "Package.resolved"), ("swift-v2", "Package.resolved"), ("swift-v3", "Package.resolved"), ("cargo", "Cargo.lock"),
        ("npm-v1", "package-lock.json"), ("npm-v3", "package-lock.json"), ("pnpm-v6", "pnpm-lock.yaml"), ("pnpm-v9", "pnpm-lock.yaml"),
        ("yarn-v1", "yarn.lock"), ("yarn-berry", "yarn.lock"), ("ruby", "Gemfile.lock"), ("cocoapods", "Podfile.lock"),
        ("dart", "pubspec.lock"), ("gradle/app", "gradle.lockfile"), ("gradle", "gradle/libs.versions.toml"), ("go", "go.sum"),
        ("poetry", "poetry.lock"), ("uv", "uv.lock"),
    ].map { folder, file in
        var contents = try readLockFixture(folder, file)
        contents.file = folder + "/" + file
        return contents
    }
}

private func bill(_ contents: [LockFileContents]) -> SoftwareBill {
    SoftwareBill(
        projectName: "rocket", projectVersion: "2.1.0", lockFiles: contents,
        files: [.init(name: "rocket-2.1.0.tar.gz", sha256: SHA256.hex(of: Array("archive".utf8)))],
        timestamp: Date(timeIntervalSince1970: 1_767_225_600)
    )
}

/// Runs cyclonedx-python-lib's strict JSON validator (schema 1.6) from the project's virtualenv on `data`.
func validateCycloneDX(_ data: Data) throws -> (valid: Bool, output: String) {
    let python = packageRoot + "/.venv/bin/python"
    guard FileManager.default.isExecutableFile(atPath: python) else {
        throw TestFailure("no virtualenv at .venv: run Scripts/setup (it installs cyclonedx-python-lib from PyPI)")
    }
    let file = NSTemporaryDirectory() + "shiplane-sbom-\(UUID().uuidString).cdx.json"
    try data.write(to: URL(fileURLWithPath: file))
    defer { try? FileManager.default.removeItem(atPath: file) }
    let result = try runTool([python, packageRoot + "/Tests/ShiplaneTests/Fixtures/SBOM/validate_cyclonedx.py", file])
    return (result.status == 0, result.output)
}

@Suite("CycloneDX and SPDX documents", .offThePool)
struct SBOMDocumentTests {
    @Test func theCycloneDXDocumentOfEveryFormatIsValidAgainstTheSchema() throws {
        let data = try CycloneDXDocument.encode(bill(try allFixtureLockFiles()), tool: "1.2.3")
        let validation = try validateCycloneDX(data)
        #expect(validation.valid, "\(validation.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let components = try #require(json["components"] as? [[String: Any]])
        let purls = components.compactMap { $0["purl"] as? String }
        #expect(purls.count == 73, "every fixture's packages, merged by package URL: \(purls.count)")
        #expect(purls == purls.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(purls.contains("pkg:maven/androidx.core/core-ktx@1.13.1") && !purls.contains("pkg:maven/androidx.core/core-ktx@1.13.0"),
                "the lock file's version wins over the catalog's")
        let file = try #require(components.first { $0["type"] as? String == "file" })
        #expect(file["name"] as? String == "rocket-2.1.0.tar.gz")
        let metadata = try #require(json["metadata"] as? [String: Any])
        #expect(metadata["timestamp"] as? String == "2026-01-01T00:00:00Z")
        let dependencies = try #require(json["dependencies"] as? [[String: Any]])
        let project = try #require(dependencies.first { $0["ref"] as? String == "project:rocket@2.1.0" })
        #expect((project["dependsOn"] as? [String])?.contains("pkg:cargo/anyhow@1.0.86") == true)
        let typescript = try #require(dependencies.first { $0["ref"] as? String == "pkg:npm/typescript@5.4.5" })
        #expect(typescript["dependsOn"] as? [String] == ["pkg:npm/regenerator-runtime@0.13.11"])
        #expect(!dependencies.contains { $0["ref"] as? String == "pkg:swift/github.com/apple/swift-nio@2.64.0" },
                "no graph entry where the lock file does not give one: unknown, not 'depends on nothing'")
    }

    @Test func theValidatorRefusesAnInvalidDocument() throws {
        let data = try CycloneDXDocument.encode(bill([try readLockFixture("cargo", "Cargo.lock")]), tool: "1.2.3")
        var text = String(decoding: data, as: UTF8.self)
        text = text.replacingOccurrences(of: "\"b3d1d046238990b9cf5bcde22a3fb3584ee5cf65fb2765f454ed428c7a0063da\"", with: "\"not-hex\"")
        let broken = try validateCycloneDX(Data(text.utf8))
        #expect(!broken.valid, "a hash that is not hex must fail: \(broken.output)")
        #expect(broken.output.contains("not-hex"))
        let unknownMember = text.replacingOccurrences(of: "\"bomFormat\" : \"CycloneDX\"", with: "\"bomFormat\" : \"CycloneDX\", \"colour\" : \"red\"")
        #expect(!(try validateCycloneDX(Data(unknownMember.utf8))).valid, "the strict schema refuses unknown members")
    }

    @Test func theSameBillGivesTheSameBytesAndTheSerialNumberFollowsTheContent() throws {
        let contents = try allFixtureLockFiles()
        let first = try CycloneDXDocument.encode(bill(contents), tool: "1.2.3")
        let second = try CycloneDXDocument.encode(bill(contents.reversed()), tool: "1.2.3")
        #expect(first == second, "the order lock files are read in does not matter")
        var other = bill(contents)
        other.projectVersion = "2.1.1"
        let third = try CycloneDXDocument.encode(other, tool: "1.2.3")
        func serial(_ data: Data) throws -> String {
            try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["serialNumber"] as? String)
        }
        #expect(try serial(first) == serial(second))
        #expect(try serial(first) != serial(third))
        #expect(try serial(first).range(of: #"^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"#, options: .regularExpression) != nil)
    }

    @Test func theSPDXDocumentNamesPackagesFilesAndRelationships() throws {
        let data = try SPDXDocument.encode(bill(try allFixtureLockFiles()), tool: "1.2.3")
        #expect(data == (try SPDXDocument.encode(bill(try allFixtureLockFiles()), tool: "1.2.3")))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["spdxVersion"] as? String == "SPDX-2.3")
        #expect(json["dataLicense"] as? String == "CC0-1.0")
        #expect((json["documentNamespace"] as? String)?.hasPrefix("https://spdx.org/spdxdocs/rocket-2.1.0-") == true)
        let packages = try #require(json["packages"] as? [[String: Any]])
        #expect(packages.count == 75, "the project, the file and 73 packages")
        #expect(Set(packages.compactMap { $0["SPDXID"] as? String }).count == packages.count)
        #expect(packages.allSatisfy { ($0["SPDXID"] as? String)?.range(of: #"^SPDXRef-[A-Za-z0-9.-]+$"#, options: .regularExpression) != nil })
        let anyhow = try #require(packages.first { (($0["externalRefs"] as? [[String: Any]])?.first?["referenceLocator"] as? String) == "pkg:cargo/anyhow@1.0.86" })
        #expect((anyhow["checksums"] as? [[String: Any]])?.first?["algorithm"] as? String == "SHA256")
        let relationships = try #require(json["relationships"] as? [[String: Any]])
        #expect(relationships.contains { $0["relationshipType"] as? String == "DEV_DEPENDENCY_OF" })
        #expect(relationships.filter { $0["relationshipType"] as? String == "DESCRIBES" }.count == 2)
    }
}
