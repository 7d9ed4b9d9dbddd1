import Foundation
import Testing
@testable import Shiplane
@testable import ShiplaneCLI

@Suite("Command-line parsing and lane discovery", .offThePool)
struct ParsingTests {
    @Test(arguments: [
        ("Release", "release"), ("BetaDeployLane", "beta-deploy"), ("CheckAll", "check-all"),
        ("HTTPUpload", "http-upload"), ("Lane", "lane"), ("build_number", "build-number"), ("buildNumber", "build-number"),
    ])
    func laneNames(typeName: String, expected: String) {
        #expect(laneName(forType: typeName) == expected)
    }

    /// A lane that sets `isPrivate` to true, in any spelling, in its body or an extension, is
    /// found private (completion leaves it out); `false`, a comment, a string or a nested type's
    /// declaration does not make it so.
    @Test func privateLanesAreFoundInEverySpelling() {
        let source = #"""
        struct A: Lane { static let isPrivate = true }
        struct B: Lane { public static let isPrivate: Bool = true }
        struct C: Lane { static var isPrivate: Bool { true } }
        struct D: Lane { static var isPrivate: Bool { return true } }
        struct E: Lane { }
        extension E { static var isPrivate: Bool { true } }
        struct F: Lane { static let isPrivate = false }
        struct G: Lane { // static let isPrivate = true
            let text = "static let isPrivate = true"
            struct H: Lane { static let isPrivate = true }
        }
        """#
        let found = LaneDiscovery.scan([(path: "Lanes/All.swift", text: source)])
        #expect(found.lanes == ["A", "B", "C", "D", "E", "F", "G", "G.H"])
        #expect(found.privateLanes == ["A", "B", "C", "D", "E", "G.H"])
    }

    /// A lane's default name comes from its type name as `String(describing:)` prints it (read
    /// without printing, which costs a statically linked lane program conformance scans):
    /// unqualified for a nested type, with the arguments of a generic one.
    @Test func aLaneTypeIsNamedAfterItsUnqualifiedTypeName() {
        #expect(NamingBetaDeployLane.name == "naming-beta-deploy")
        #expect(NamingGroup.NightlyLane.name == "nightly")
        #expect(NamingGroup.NightlyLane.name == laneName(forType: String(describing: NamingGroup.NightlyLane.self)))
        #expect(NamingWrapped<Int>.name == laneName(forType: String(describing: NamingWrapped<Int>.self)))
        #expect(NamingNamed.name == "custom", "a declared name wins")
    }

    @Test func globalOptionsAreTakenFromAnywhereBeforeTheSeparator() throws {
        let (options, rest) = try CommandLineWords.split([
            "--dry-run", "release", "--bump", "minor", "--report-json", "r.json", "--junit=j.xml", "--", "--verbose",
        ])
        #expect(options.dryRun)
        #expect(options.reportJSON == "r.json")
        #expect(options.junit == "j.xml")
        #expect(!options.verbose)
        #expect(rest == ["release", "--bump", "minor", "--", "--verbose"])
    }

    @Test func aGlobalOptionWithoutItsValueIsAUsageError() {
        #expect(throws: UsageError.self) { try CommandLineWords.split(["release", "--report-json"]) }
    }

    @Test func keyValueArgumentsBecomeOptions() {
        let options = [
            OptionInfo(kind: "option", names: [.init(kind: "long", name: "bump")], preferredName: nil, valueName: "bump", defaultValue: nil, abstract: nil, allValues: nil, isOptional: true, shouldDisplay: true),
            OptionInfo(kind: "flag", names: [.init(kind: "long", name: "prerelease")], preferredName: nil, valueName: "prerelease", defaultValue: nil, abstract: nil, allValues: nil, isOptional: true, shouldDisplay: true),
            OptionInfo(kind: "option", names: [.init(kind: "long", name: "build-number")], preferredName: nil, valueName: "n", defaultValue: nil, abstract: nil, allValues: nil, isOptional: true, shouldDisplay: true),
        ]
        #expect(convertKeyValueArguments(["bump:minor", "prerelease:true", "build_number:7"], options: options)
            == ["--bump", "minor", "--prerelease", "--build-number", "7"])
        #expect(convertKeyValueArguments(["prerelease:false"], options: options) == [])
        // Not an option of the lane: left alone (a URL positional, say).
        #expect(convertKeyValueArguments(["https://example.com", "other:1"], options: options) == ["https://example.com", "other:1"])
    }

    @Test func discoveryFindsLanesAndHooks() {
        let source = #"""
        import Shiplane
        // struct Commented: Lane {}
        /* struct Block: Lane { } */
        let text = "struct InString: Lane {}"
        let raw = #"struct InRaw: Lane {}"#
        struct Release: Lane {
            func run(_ lane: LaneContext) async throws {}
        }
        public final class Nightly: Sendable, Lane { }
        enum Namespace {
            struct Inner: Shiplane.Lane {}
        }
        struct Deploy {}
        extension Deploy: Lane {}
        private struct Hidden: Lane {}
        struct Generic<T>: Lane {}
        struct Hooks: LaneHooks {}
        """#
        let found = LaneDiscovery.scan([(path: "Lanes/All.swift", text: source)])
        #expect(found.lanes == ["Release", "Nightly", "Namespace.Inner", "Deploy"])
        #expect(found.locations == ["Lanes/All.swift:6", "Lanes/All.swift:9", "Lanes/All.swift:11", "Lanes/All.swift:14"])
        #expect(found.hooks == ["Hooks"])
        #expect(found.problems == [
            "Lanes/All.swift:15:1: error: lane `Hidden` is private: the command line cannot see it; remove `private`/`fileprivate` (a lane only other lanes call sets `static let isPrivate = true`)",
            "Lanes/All.swift:16:1: error: lane `Generic` is generic: the command line cannot choose its type parameters; make it a concrete type",
        ])
    }

    @Test func redactorMasksSecretsAndTokenShapes() {
        let redactor = SecretRedactor(secrets: ["s3cr3t-value"])
        let text = "token s3cr3t-value ghp_abcdefghijklmnopqrstuvwxyz0123 https://user:pw@host/x "
            + "https://hooks.slack.com/services/T000/B000/XXXX Authorization: Bearer abc.def.ghi123"
        let redacted = redactor.redact(text)
        for leaked in ["s3cr3t-value", "ghp_abc", "user:pw", "T000/B000", "abc.def.ghi123"] {
            #expect(!redacted.contains(leaked))
        }
        #expect(redactor.redact("nothing to hide") == "nothing to hide")
    }

    @Test(arguments: [
        ("6.3.1", ">= 6.0", true), ("5.10", ">= 6.0", false), ("5.10.1", "~> 5.9", true), ("6.0", "~> 5.9", false),
        ("2.39.5", ">= 2.30, < 3", true), ("3.0", ">= 2.30, < 3", false), ("1.2", "= 1.2.0", true), ("1.2", "!= 1.2", false),
    ])
    func versionConstraints(version: String, constraint: String, satisfied: Bool) throws {
        let requirement = try VersionConstraint(parsing: constraint)
        #expect(requirement.isSatisfied(by: try #require(ToolVersion(version))) == satisfied)
    }

    @Test func badConstraintsListEveryProblem() {
        #expect(throws: ValidationFailure.self) { try VersionConstraint(parsing: ">= six, < seven") }
        do {
            _ = try VersionConstraint(parsing: ">= six, < seven")
        } catch let failure as ValidationFailure {
            #expect(failure.problems.count == 2)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// A lane that stores nothing, given no words, is made and validated without
    /// swift-argument-parser; a lane with an option or another stored property, words, or a
    /// refusing `validate()` goes through `parse`, which reports as it always did.
    @Test func aLaneWithoutOptionsIsMadeWithoutTheParser() throws {
        #expect(LaneHost.withoutOptions(NamingBetaDeployLane.self, arguments: []) != nil)
        #expect(LaneHost.withoutOptions(StoringLane.self, arguments: []) == nil)
        #expect(LaneHost.withoutOptions(NamingBetaDeployLane.self, arguments: ["--help"]) == nil)
        #expect(LaneHost.withoutOptions(OptionLane.self, arguments: []) == nil)
        #expect(try OptionLane.parse([]).word == "default", "the parser still gives the option its default")
        #expect(LaneHost.withoutOptions(RefusingLane.self, arguments: []) == nil)
        #expect(throws: (any Error).self) { try RefusingLane.parse([]) }
    }

    /// Variables whose names look secret have their values redacted; the names are compared
    /// as bytes, upper-cased, anywhere in the name (and `KEY` at its end).
    @Test(arguments: [
        ("GITHUB_TOKEN", true), ("my_api_key", true), ("APIKEY", true), ("SLACK_WEBHOOK_URL", true), ("DB_PASSWD", true),
        ("PLAY_SERVICE_ACCOUNT_JSON", true), ("SIGNINGKEY", true), ("KEY", true), ("HOME", false), ("KEYCHAIN_PATH", false),
        ("PATH", false), ("KE", false), ("", false),
    ])
    func secretLookingNames(name: String, secret: Bool) {
        #expect(LaneEnvironment.looksSecret(name) == secret)
    }

    /// The lane files: `.swift` files in Lanes/ and its subfolders, sorted; hidden files and
    /// folders and other files left out; a linked file listed; a missing or empty folder a clear error.
    @Test func laneFilesAreFoundInSubfoldersAndSorted() async throws {
        try await withTemporaryDirectory { root in
            let lanes = root.appendingPathComponent("Lanes")
            try writeFile(lanes, "Release.swift", "")
            try writeFile(lanes, "Apps/Beta.swift", "")
            try writeFile(lanes, "Apps/Deep/Nightly.swift", "")
            try writeFile(lanes, "Apps/notes.md", "")
            try writeFile(lanes, ".hidden/Secret.swift", "")
            try writeFile(lanes, ".Scratch.swift", "")
            try writeFile(root, "Shared.swift", "")
            try FileManager.default.createSymbolicLink(atPath: lanes.path + "/Linked.swift", withDestinationPath: root.path + "/Shared.swift")
            let files = try LaneCompiler.laneFiles(in: lanes.path, root: root.path)
            #expect(files == ["Apps/Beta.swift", "Apps/Deep/Nightly.swift", "Linked.swift", "Release.swift"].map { lanes.path + "/" + $0 })
            #expect(throws: EnvironmentProblem.self) { try LaneCompiler.laneFiles(in: root.path + "/Missing", root: root.path) }
            try FileManager.default.createDirectory(atPath: root.path + "/Empty/Sub", withIntermediateDirectories: true)
            #expect(throws: EnvironmentProblem.self) { try LaneCompiler.laneFiles(in: root.path + "/Empty", root: root.path) }
        }
    }

    /// The session the supervisor hands the lane program survives the pipe's encoding whole:
    /// no global options or all of them, empty values, values that look like the format's
    /// markers, lines and non-ASCII text; bytes of another format are refused, not misread.
    @Test func theSharedSessionSurvivesItsEncoding() throws {
        let bare = SharedSession(dotEnv: [:])
        #expect(SharedSession(encoded: bare.encoded) == bare)
        let full = SharedSession(
            dotEnv: ["API_TOKEN": "s3cr=t!", "EMPTY": "", "LINES": "one\ntwo", "NAME": "Zoë ✓", "=odd": "!"],
            globals: GlobalValues(
                dryRun: true, verbose: false, reportJSON: "report.json", junit: nil, noRollback: true, noVerify: false,
                ci: "", environmentName: "=staging", noColor: true
            )
        )
        #expect(SharedSession(encoded: full.encoded) == full)
        #expect(full.encoded == full.encoded, "the same session, the same bytes")
        #expect(SharedSession(encoded: Array(#"{"dotEnv":{}}"#.utf8)) == nil, "JSON of an older shiplane")
        #expect(SharedSession(encoded: []) == nil)
        #expect(SharedSession(encoded: Array(full.encoded.dropLast(2))) == nil, "cut short")
        // `--dry-run`'s field (the first after the `g` marker) made neither 1 nor 0.
        let bytes = full.encoded
        let marker: [UInt8] = [0, UInt8(ascii: "g"), 0]
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: marker) })
        #expect(bytes[at + 3] == UInt8(ascii: "1"))
        var wrongFlag = bytes
        wrongFlag[at + 3] = UInt8(ascii: "x")
        #expect(SharedSession(encoded: wrongFlag) == nil)
    }

    @Test func toolVersionIsFoundInFreeText() {
        #expect(ToolVersion.first(in: "Swift version 6.3.1 (swift-6.3.1-RELEASE)")?.description == "6.3.1")
        #expect(ToolVersion.first(in: "git version 2.39.5")?.description == "2.39.5")
        #expect(ToolVersion.first(in: "no digits here") == nil)
    }
}

private struct NamingBetaDeployLane: Lane {
    func run(_ lane: LaneContext) async throws {}
}

private enum NamingGroup {
    struct NightlyLane: Lane {
        func run(_ lane: LaneContext) async throws {}
    }
}

private struct NamingWrapped<Value>: Lane {
    func run(_ lane: LaneContext) async throws {}
}

private struct NamingNamed: Lane {
    static let name = "custom"
    func run(_ lane: LaneContext) async throws {}
}

private struct OptionLane: Lane {
    @Option var word = "default"
    func run(_ lane: LaneContext) async throws {}
}

private struct RefusingLane: Lane {
    func validate() throws { throw ValidationError("refused") }
    func run(_ lane: LaneContext) async throws {}
}

private struct StoringLane: Lane {
    var label = "stored"
    func run(_ lane: LaneContext) async throws {}
}
