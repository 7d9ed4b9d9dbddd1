import Foundation
import Testing
@testable import Shiplane

/// Reads a lock file from `Fixtures/SBOM/<folder>/<file>` with the reader its name chooses.
func readLockFixture(_ folder: String, _ file: String) throws -> LockFileContents {
    let base = packageRoot + "/Tests/ShiplaneTests/Fixtures/SBOM/" + folder
    let data = try Data(contentsOf: URL(fileURLWithPath: base + "/" + file))
    guard let reader = LockFileFormats.reader(for: file) else { throw TestFailure("no reader for \(file)") }
    var siblings: [String: Data] = [:]
    for name in LockFileFormats.siblingNames {
        if let sibling = FileManager.default.contents(atPath: base + "/" + name) { siblings[name] = sibling }
    }
    return try reader.read(data, file: file, siblings: siblings)
}

extension LockFileContents {
    var purls: [String] { packages.map(\.purl.description).sorted() }
    func package(_ purl: String) -> LockedPackage? { packages.first { $0.purl.description == purl } }
    func dependencies(of purl: String) -> [String]? { package(purl)?.dependencies?.map(\.description).sorted() }
    var directPurls: [String]? { direct?.map(\.description).sorted() }
}

private func sha256(_ text: String) -> String { SHA256.hex(of: Array(text.utf8)) }
private func sha512(_ text: String) -> String {
    let output = try? runTool(["sh", "-c", "printf '%s' \"$0\" | sha512sum", text])
    return String(output?.output.prefix(128) ?? "")
}

@Suite("Lock files read for the SBOM", .offThePool)
struct LockFileReaderTests {
    @Test func swiftPackageResolvedVersionsOneTwoAndThree() throws {
        let v1 = try readLockFixture("swift-v1", "Package.resolved")
        #expect(v1.purls == ["pkg:swift/github.com/apple/swift-argument-parser@1.2.0", "pkg:swift/github.com/jpsim/Yams@5.0.1"])
        #expect(v1.package("pkg:swift/github.com/jpsim/Yams@5.0.1")?.vcsURL == "https://github.com/jpsim/Yams.git")
        #expect(v1.direct == nil, "Package.resolved does not say what the manifest names")
        let v2 = try readLockFixture("swift-v2", "Package.resolved")
        #expect(v2.purls == [
            "pkg:swift/github.com/apple/swift-log@1.5.4", "pkg:swift/github.com/apple/swift-nio@2.64.0",
            "pkg:swift/github.com/swiftlang/swift-markdown@aaf9fb0c6c2f1d32a4b9e8b6e9c1b1e1f5cdb1a2",
        ], "an scp-style location names the same repository; a branch pin is named by its commit")
        let v3 = try readLockFixture("swift-v3", "Package.resolved")
        #expect(v3.purls == ["pkg:swift/github.com/apple/swift-crypto@3.10.0", "pkg:swift/mona/linkedlist@1.1.0"])
        #expect(v3.format == "Package.resolved v3")
    }

    @Test func cargoLockWithTwoVersionsOfACrateAndAGitSource() throws {
        let lock = try readLockFixture("cargo", "Cargo.lock")
        #expect(lock.purls == [
            "pkg:cargo/anyhow@1.0.86", "pkg:cargo/serde@1.0.203", "pkg:cargo/serde_derive@1.0.203",
            "pkg:cargo/winnow@0.5.40", "pkg:cargo/winnow@0.6.13",
        ], "the workspace crate rocket-cli is the project, not a component")
        #expect(lock.directPurls == ["pkg:cargo/anyhow@1.0.86", "pkg:cargo/serde@1.0.203", "pkg:cargo/winnow@0.6.13"])
        #expect(lock.dependencies(of: "pkg:cargo/winnow@0.6.13") == ["pkg:cargo/winnow@0.5.40"], "`winnow 0.5.40` names the version")
        #expect(lock.dependencies(of: "pkg:cargo/serde@1.0.203") == ["pkg:cargo/serde_derive@1.0.203"])
        #expect(lock.package("pkg:cargo/anyhow@1.0.86")?.hashes == [PackageHash(.sha256, hex: "b3d1d046238990b9cf5bcde22a3fb3584ee5cf65fb2765f454ed428c7a0063da")].compactMap { $0 })
        #expect(lock.package("pkg:cargo/winnow@0.6.13")?.hashes.isEmpty == true)
        #expect(lock.package("pkg:cargo/winnow@0.6.13")?.vcsURL == "https://github.com/winnow-rs/winnow")
    }

    @Test func packageLockVersion3ResolvesAsNodeDoes() throws {
        let lock = try readLockFixture("npm-v3", "package-lock.json")
        #expect(lock.purls == [
            "pkg:npm/%40babel/runtime@7.24.7", "pkg:npm/left-pad@1.3.0", "pkg:npm/regenerator-runtime@0.13.11",
            "pkg:npm/regenerator-runtime@0.14.1", "pkg:npm/typescript@5.4.5",
        ])
        #expect(lock.dependencies(of: "pkg:npm/typescript@5.4.5") == ["pkg:npm/regenerator-runtime@0.13.11"], "its own node_modules first")
        #expect(lock.dependencies(of: "pkg:npm/%40babel/runtime@7.24.7") == ["pkg:npm/regenerator-runtime@0.14.1"], "then the top level")
        #expect(lock.directPurls == ["pkg:npm/%40babel/runtime@7.24.7", "pkg:npm/left-pad@1.3.0", "pkg:npm/typescript@5.4.5"])
        #expect(lock.package("pkg:npm/typescript@5.4.5")?.isDevelopment == true)
        #expect(lock.package("pkg:npm/left-pad@1.3.0")?.isDevelopment == false)
        #expect(lock.package("pkg:npm/%40babel/runtime@7.24.7")?.hashes.map(\.hex) == [sha512("@babel/runtime@7.24.7")])
        #expect(lock.package("pkg:npm/%40babel/runtime@7.24.7")?.hashes.map(\.algorithm) == [.sha512])
    }

    @Test func packageLockVersion1NestedDependencies() throws {
        let lock = try readLockFixture("npm-v1", "package-lock.json")
        #expect(lock.purls == ["pkg:npm/debug@2.6.9", "pkg:npm/mocha@10.4.0", "pkg:npm/ms@2.0.0", "pkg:npm/ms@2.1.3"])
        #expect(lock.dependencies(of: "pkg:npm/debug@2.6.9") == ["pkg:npm/ms@2.0.0"])
        #expect(lock.dependencies(of: "pkg:npm/mocha@10.4.0") == ["pkg:npm/ms@2.1.3"])
        #expect(lock.package("pkg:npm/ms@2.0.0")?.hashes.map(\.algorithm) == [.sha1])
    }

    @Test func pnpmLockVersions6And9() throws {
        let v6 = try readLockFixture("pnpm-v6", "pnpm-lock.yaml")
        #expect(v6.purls == [
            "pkg:npm/%40types/react@18.2.79", "pkg:npm/csstype@3.1.3", "pkg:npm/loose-envify@1.4.0",
            "pkg:npm/react-dom@18.2.0", "pkg:npm/react@18.2.0", "pkg:npm/scheduler@0.23.2",
        ])
        #expect(v6.dependencies(of: "pkg:npm/react-dom@18.2.0") == ["pkg:npm/loose-envify@1.4.0", "pkg:npm/react@18.2.0", "pkg:npm/scheduler@0.23.2"])
        #expect(v6.directPurls == ["pkg:npm/%40types/react@18.2.79", "pkg:npm/react-dom@18.2.0", "pkg:npm/react@18.2.0"])
        #expect(v6.package("pkg:npm/csstype@3.1.3")?.isDevelopment == true)
        let v9 = try readLockFixture("pnpm-v9", "pnpm-lock.yaml")
        #expect(v9.purls == ["pkg:npm/%40fastify/ajv-compiler@3.5.0", "pkg:npm/fast-uri@2.3.0", "pkg:npm/is-number@6.0.0", "pkg:npm/is-odd@3.0.1"])
        #expect(v9.dependencies(of: "pkg:npm/%40fastify/ajv-compiler@3.5.0") == ["pkg:npm/fast-uri@2.3.0"], "version 9 keeps them in snapshots")
        #expect(v9.directPurls == ["pkg:npm/%40fastify/ajv-compiler@3.5.0", "pkg:npm/is-odd@3.0.1"], "an alias names the real package")
        #expect(v9.package("pkg:npm/is-odd@3.0.1")?.hashes.map(\.hex) == [sha512("is-odd@3.0.1")])
    }

    @Test func yarnClassicAndBerry() throws {
        let classic = try readLockFixture("yarn-v1", "yarn.lock")
        #expect(classic.purls == ["pkg:npm/%40babel/code-frame@7.24.7", "pkg:npm/%40babel/highlight@7.24.7", "pkg:npm/picocolors@1.0.1"])
        #expect(classic.dependencies(of: "pkg:npm/%40babel/code-frame@7.24.7") == ["pkg:npm/%40babel/highlight@7.24.7", "pkg:npm/picocolors@1.0.1"])
        #expect(classic.package("pkg:npm/picocolors@1.0.1")?.hashes == [PackageHash(.sha1, hex: SHA1Oracle.hex("picocolors@1.0.1"))].compactMap { $0 },
                "without integrity, the sha1 in the resolved URL's fragment")
        let berry = try readLockFixture("yarn-berry", "yarn.lock")
        #expect(berry.purls == ["pkg:npm/ansi-styles@4.3.0", "pkg:npm/chalk@4.1.2", "pkg:npm/color-convert@2.0.1", "pkg:npm/supports-color@7.10.0"],
                "7.10.0 stays text, not the number 7.1")
        #expect(berry.dependencies(of: "pkg:npm/chalk@4.1.2") == ["pkg:npm/ansi-styles@4.3.0", "pkg:npm/supports-color@7.10.0"])
        #expect(berry.directPurls == ["pkg:npm/chalk@4.1.2"], "the workspace's dependencies")
        #expect(berry.packages.allSatisfy { $0.hashes.isEmpty }, "berry's checksum is of Yarn's cache zip, not of the package")
    }

    @Test func gemfileLockWithPlatformsGitPathAndChecksums() throws {
        let lock = try readLockFixture("ruby", "Gemfile.lock")
        #expect(lock.purls == [
            "pkg:gem/fastlane-plugin-rocket@0.3.0", "pkg:gem/mini_portile2@2.8.7", "pkg:gem/nokogiri@1.16.6",
            "pkg:gem/nokogiri@1.16.6?platform=x86_64-linux", "pkg:gem/racc@1.8.0", "pkg:gem/rake@13.2.1",
            "pkg:gem/rspec-core@3.13.0", "pkg:gem/rspec@3.13.0",
        ], "the PATH gem is the project itself")
        #expect(lock.package("pkg:gem/rake@13.2.1")?.hashes.map(\.hex) == [sha256("rake-13.2.1")])
        #expect(lock.package("pkg:gem/nokogiri@1.16.6?platform=x86_64-linux")?.hashes.map(\.hex) == [sha256("nokogiri-1.16.6-x86_64-linux")])
        #expect(lock.package("pkg:gem/fastlane-plugin-rocket@0.3.0")?.vcsURL == "https://github.com/acme/fastlane-plugin-rocket.git")
        #expect(lock.dependencies(of: "pkg:gem/rspec@3.13.0") == ["pkg:gem/rspec-core@3.13.0"])
        #expect(lock.directPurls == [
            "pkg:gem/fastlane-plugin-rocket@0.3.0", "pkg:gem/nokogiri@1.16.6", "pkg:gem/nokogiri@1.16.6?platform=x86_64-linux",
            "pkg:gem/rake@13.2.1", "pkg:gem/rspec@3.13.0",
        ])
    }

    @Test func podfileLockWithSubspecsAndAGitPod() throws {
        let lock = try readLockFixture("cocoapods", "Podfile.lock")
        #expect(lock.purls == [
            "pkg:cocoapods/Alamofire@5.9.1", "pkg:cocoapods/Firebase@10.25.0#CoreOnly", "pkg:cocoapods/Firebase@10.25.0#Crashlytics",
            "pkg:cocoapods/FirebaseCore@10.25.0", "pkg:cocoapods/FirebaseCrashlytics@10.25.0", "pkg:cocoapods/RocketKit@0.9.0",
        ])
        #expect(lock.dependencies(of: "pkg:cocoapods/Firebase@10.25.0#Crashlytics") == ["pkg:cocoapods/Firebase@10.25.0#CoreOnly", "pkg:cocoapods/FirebaseCrashlytics@10.25.0"])
        #expect(lock.directPurls == ["pkg:cocoapods/Alamofire@5.9.1", "pkg:cocoapods/Firebase@10.25.0#Crashlytics", "pkg:cocoapods/RocketKit@0.9.0"])
        #expect(lock.package("pkg:cocoapods/RocketKit@0.9.0")?.vcsURL == "https://github.com/acme/RocketKit.git")
    }

    @Test func pubspecLock() throws {
        let lock = try readLockFixture("dart", "pubspec.lock")
        #expect(lock.purls == ["pkg:pub/async@2.11.0", "pkg:pub/flutter_lints@3.0.2", "pkg:pub/http@1.2.1", "pkg:pub/rocket_ui@0.1.0"], "the SDK's flutter is left out")
        #expect(lock.directPurls == ["pkg:pub/flutter_lints@3.0.2", "pkg:pub/http@1.2.1", "pkg:pub/rocket_ui@0.1.0"])
        #expect(lock.package("pkg:pub/http@1.2.1")?.hashes.map(\.hex) == [sha256("http-1.2.1")])
        #expect(lock.package("pkg:pub/flutter_lints@3.0.2")?.isDevelopment == true)
    }

    @Test func gradleLockfileAndVersionCatalog() throws {
        let lock = try readLockFixture("gradle/app", "gradle.lockfile")
        #expect(lock.purls == [
            "pkg:maven/androidx.core/core-ktx@1.13.1", "pkg:maven/com.squareup.okhttp3/okhttp@4.12.0",
            "pkg:maven/com.squareup.okio/okio@3.6.0", "pkg:maven/junit/junit@4.13.2",
        ])
        #expect(lock.package("pkg:maven/junit/junit@4.13.2")?.isDevelopment == true, "only in test configurations")
        let catalog = try readLockFixture("gradle", "gradle/libs.versions.toml")
        #expect(catalog.purls == [
            "pkg:maven/androidx.compose.ui/ui", "pkg:maven/androidx.compose/compose-bom@2024.05.00",
            "pkg:maven/androidx.core/core-ktx@1.13.0", "pkg:maven/com.android.application/com.android.application.gradle.plugin@8.4.1",
            "pkg:maven/com.squareup.okhttp3/okhttp@4.12.0",
            "pkg:maven/org.jetbrains.kotlin.android/org.jetbrains.kotlin.android.gradle.plugin@1.9.24",
        ])
    }

    @Test func goSumWithGoMod() throws {
        let lock = try readLockFixture("go", "go.sum")
        #expect(lock.purls == ["pkg:golang/github.com/BurntSushi/toml@v1.4.0", "pkg:golang/golang.org/x/sys@v0.21.0", "pkg:golang/gopkg.in/yaml.v3@v3.0.1"],
                "a module whose go.mod alone was read is not part of the build")
        #expect(lock.directPurls == ["pkg:golang/github.com/BurntSushi/toml@v1.4.0", "pkg:golang/gopkg.in/yaml.v3@v3.0.1"], "// indirect is not direct")
        #expect(lock.package("pkg:golang/golang.org/x/sys@v0.21.0")?.hashes.map(\.hex) == [sha256("sys-0.21.0")], "h1: decoded")
    }

    @Test func poetryAndUvLocks() throws {
        let poetry = try readLockFixture("poetry", "poetry.lock")
        #expect(poetry.purls == ["pkg:pypi/certifi@2024.6.2", "pkg:pypi/charset-normalizer@3.3.2", "pkg:pypi/requests@2.32.3"])
        #expect(poetry.package("pkg:pypi/certifi@2024.6.2")?.hashes.map(\.hex) == [sha256("certifi-sdist")], "the sdist's digest")
        #expect(poetry.package("pkg:pypi/charset-normalizer@3.3.2")?.hashes.map(\.hex) == [sha256("charset-whl")], "its only wheel")
        #expect(poetry.dependencies(of: "pkg:pypi/requests@2.32.3") == ["pkg:pypi/certifi@2024.6.2", "pkg:pypi/charset-normalizer@3.3.2"])
        #expect(poetry.directPurls == ["pkg:pypi/requests@2.32.3"], "from pyproject.toml beside it")
        let uv = try readLockFixture("uv", "uv.lock")
        #expect(uv.purls == ["pkg:pypi/idna@3.7", "pkg:pypi/pluggy@1.5.0", "pkg:pypi/pytest@8.2.2"])
        #expect(uv.directPurls == ["pkg:pypi/idna@3.7", "pkg:pypi/pytest@8.2.2"], "the editable project's dependencies and dev group")
        #expect(uv.dependencies(of: "pkg:pypi/pytest@8.2.2") == ["pkg:pypi/pluggy@1.5.0"])
        #expect(uv.package("pkg:pypi/idna@3.7")?.hashes.map(\.hex) == [sha256("idna-sdist")])
        #expect(uv.package("pkg:pypi/idna@3.7")?.downloadURL == "https://files.pythonhosted.org/packages/21/ed/idna-3.7.tar.gz")
    }

    @Test(arguments: [
        ("Cargo.lock", "[[package]]\nname = \"x\"\nversion = \"1\nsource = \"y\"\n", "line 3"),
        ("package-lock.json", "{\"lockfileVersion\": 3,", "not JSON"),
        ("Package.resolved", "{\"version\": 9, \"pins\": []}", "is not 1, 2 or 3"),
        ("gradle.lockfile", "com.example:only-two=runtimeClasspath\n", "line 1"),
        ("yarn.lock", "# yarn lockfile v1\n\n\"a@^1\":\n  resolved \"x\"\n", "has no version"),
    ])
    func aBrokenLockFileIsAnErrorNamingItAndTheLine(name: String, text: String, expected: String) throws {
        guard let reader = LockFileFormats.reader(for: name) else { throw TestFailure("no reader for \(name)") }
        #expect {
            try reader.read(Data(text.utf8), file: "sub/" + name, siblings: [:])
        } throws: { error in
            let message = (error as? LockFileProblem)?.message ?? ""
            return message.contains("sub/\(name)") && message.contains(expected)
        }
    }

    @Test(arguments: [
        (PackageURL.npm("@angular/core", version: "17.0.0"), "pkg:npm/%40angular/core@17.0.0"),
        (PackageURL.pypi("Django_REST.framework", version: "3.15"), "pkg:pypi/django-rest-framework@3.15"),
        (PackageURL(type: "cargo", name: "wasi", version: "0.11.0+wasi-snapshot-preview1"), "pkg:cargo/wasi@0.11.0%2Bwasi-snapshot-preview1"),
        (PackageURL(type: "gem", name: "nokogiri", version: "1.16.6", qualifiers: ["platform": "arm64-darwin"]), "pkg:gem/nokogiri@1.16.6?platform=arm64-darwin"),
    ])
    func packageURLsAreWrittenAsThePurlSpecSays(purl: PackageURL, expected: String) {
        #expect(purl.description == expected)
    }
}

/// SHA-1 from the `sha1sum` command, an oracle independent of the code under test.
enum SHA1Oracle {
    static func hex(_ text: String) -> String {
        let output = try? runTool(["sh", "-c", "printf '%s' \"$0\" | sha1sum", text])
        return String(output?.output.prefix(40) ?? "")
    }
}
