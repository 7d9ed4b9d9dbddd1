import Foundation
import Testing
@testable import Shiplane
@testable import ShiplaneCLI

/// What a lane's start does without the Foundation calls whose first use costs a statically linked
/// lane program a scan of every protocol conformance (`String(format:)`, `URL` standardizing,
/// `JSONEncoder`): each replacement gives what the Foundation call gave.
@Suite("A lane's start without conformance scans", .offThePool)
struct StartPathTests {
    /// Durations in the summary read as `String(format: "%.2f s")` and `"%.0f s"` wrote them,
    /// rounding halves to even as C does.
    @Test func secondsAreWrittenAsPrintfWroteThem() {
        var values: [Double] = [0, 0.001, 0.004, 0.005, 0.0051, 0.125, 0.375, 0.994, 0.995, 0.996, 1, 1.5, 2.675, 9.994, 9.995, 9.999, 10, 10.4, 10.5, 11.5, 12.5, 59.4, 59.5]
        for step in 0..<2_000 { values.append(Double(step) * 0.00731) }
        for value in values {
            let expected = value < 10 ? String(format: "%.2f s", value) : String(format: "%.0f s", value)
            #expect(formatSeconds(value) == expected, "\(value)")
        }
        #expect(formatSeconds(60) == "1 min 0 s")
        #expect(formatSeconds(125.4) == "2 min 5 s")
        // Never a duration, but no crash either.
        #expect(formatSeconds(.infinity) == "0.00 s" && formatSeconds(.nan) == "0.00 s" && formatSeconds(-1) == "0.00 s")
    }

    /// The lock file's holder, written by hand, reads back as the record that began the run (to
    /// the second), whatever its strings hold.
    @Test func theLockHolderReadsBackAsTheRecord() throws {
        let odd = "quote \" backslash \\ slash / newline \n return \r tab \t bell \u{07} nul \u{00} Zoë ✓ 🚀"
        let started = Date(timeIntervalSince1970: 1_795_680_062.75)
        let record = RunRecord(lane: odd, arguments: ["--bump", odd, ""], pid: 4242, host: "host \"x\"", startedAt: started, workTree: "/tmp/a b/\(odd)")
        let data = Data(RunStore.holderJSON(record))
        _ = try JSONSerialization.jsonObject(with: data)
        let read = try RunStore.decoder.decode(RunRecord.self, from: data)
        var expected = record
        expected.startedAt = Date(timeIntervalSince1970: 1_795_680_062)
        // The lock file outlives the run: it keeps no arguments (one may be a secret).
        expected.arguments = []
        #expect(read == expected)
        // The same text as the encoder gives for the date.
        let encoded = try RunStore.encoder.encode(expected)
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["startedAt"] as? String == RunStore.iso8601(started))
        #expect(RunStore.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
    }

    /// The work tree's root is looked for from the same folder `URL` standardizing gave.
    @Test(arguments: ["/", "/a/b", "/a/b/", "/a//b", "/a/./b", "/a/b/..", "/a/b/../..", "/a/../../b", "/a/b/./../c/.", "//a", "/a b/ç/"])
    func pathsAreStandardizedAsURLDid(_ path: String) {
        #expect(lexicallyStandardized(path) == URL(fileURLWithPath: path).standardizedFileURL.path, "\(path)")
    }

    @Test func aRelativePathIsStandardizedFromTheCurrentFolder() {
        let here = FileManager.default.currentDirectoryPath
        #expect(lexicallyStandardized("x/../y") == (here == "/" ? "/y" : here + "/y"))
    }

    /// The built-in command names written out are those of the command types, in order, and each
    /// finds its type; a lane's name finds none.
    @Test func theWrittenCommandNamesAreTheCommandTypesNames() {
        #expect(ShiplaneCommand.commandNames == ShiplaneCommand.commands.map { $0._commandName } + ["help"])
        for type in ShiplaneCommand.commands {
            #expect(ShiplaneCommand.command(named: type._commandName).map(ObjectIdentifier.init) == ObjectIdentifier(type))
        }
        #expect(ShiplaneCommand.command(named: "help") == nil)
        #expect(ShiplaneCommand.command(named: "release") == nil)
    }

    /// Lanes linked from a bundle take GCC's static C++ runtime where the compiler has it: the
    /// archive its `clang` names (on this machine, where the test suite builds with it, one exists).
    @Test func theStaticCxxRuntimeIsTheOneClangLinks() throws {
        let environment = ProcessInfo.processInfo.environment
        let swiftc = try #require(findExecutable("swiftc", path: environment["PATH"], workingDirectory: nil))
        let found = try #require(LaneCompiler.staticCxxRuntime(swiftc: swiftc, environment: environment))
        #expect(found.hasSuffix("/libstdc++.a") && FileManager.default.fileExists(atPath: found))
        // A compiler folder without clang has none: the lane program then loads libstdc++.so.
        let folder = try TemporaryRepository(commit: false)
        let lone = folder.root + "/swiftc"
        #expect(FileManager.default.createFile(atPath: lone, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755]))
        #expect(LaneCompiler.staticCxxRuntime(swiftc: lone, environment: environment) == nil)
    }
}

/// The environment and folder listings a cached lane's start reads with the C library
/// (`ProcessEnvironment`) give what Foundation gave.
@Suite("The start's environment and folder listings without Foundation", .offThePool)
struct StartPathEnvironmentTests {
    /// This process's environment, with values Foundation reads in its own way set first.
    @Test func theEnvironmentIsFoundations() {
        let odd = ["SHIPLANE_TEST_EQUALS": "a=b==c", "SHIPLANE_TEST_EMPTY": "", "SHIPLANE_TEST_UNICODE": "Zoë ✓ 🚀", "SHIPLANE_TEST_SPACES": " x y "]
        for (name, value) in odd { setenv(name, value, 1) }
        defer { for name in odd.keys { unsetenv(name) } }
        let read = ProcessEnvironment.current()
        #expect(read == ProcessInfo.processInfo.environment)
        for (name, value) in odd {
            #expect(read[name] == value)
            #expect(ProcessEnvironment.value(name) == value)
        }
        #expect(ProcessEnvironment.value("SHIPLANE_TEST_NEVER_SET") == nil)
    }

    /// A block with what only an `execve` makes (Foundation on Linux, tried with such a block:
    /// `A=1`, `A=2` gives `A` = `2`; bytes that are not UTF-8 are replaced; an entry without `=`
    /// is left out; an empty name is kept).
    @Test func anEnvironmentBlockReadsAsFoundationReadsIt() {
        let entries: [[UInt8]] = [Array("A=1".utf8), Array("A=2".utf8), [0x42, 0x3D, 0xFF, 0xFE], Array("NOEQUALS".utf8), Array("=empty".utf8), Array("C=x=y".utf8), [0xFF, 0x3D, 0x62]]
        var pointers: [UnsafeMutablePointer<CChar>?] = entries.map { bytes in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            return pointer
        } + [nil]
        defer { for pointer in pointers { pointer?.deallocate() } }
        let read = pointers.withUnsafeMutableBufferPointer { ProcessEnvironment.variables($0.baseAddress) }
        #expect(read == ["A": "2", "B": "\u{FFFD}\u{FFFD}", "": "empty", "C": "x=y", "\u{FFFD}": "b"])
        #expect(ProcessEnvironment.variables(nil) == [:])
    }

    /// A folder's names are `contentsOfDirectory`'s (hidden ones too, no `.` or `..`); nil for a
    /// folder that is not there.
    @Test func aFoldersNamesAreFileManagers() throws {
        let folder = try TemporaryRepository(commit: false)
        for name in [".hidden", "run.json.tmp-12", "a b", "Zoë"] { try folder.write("listed/" + name, "x") }
        try FileManager.default.createDirectory(atPath: folder.path + "/listed/sub", withIntermediateDirectories: true)
        let names = try #require(ProcessEnvironment.names(in: folder.path + "/listed"))
        #expect(names.sorted() == (try FileManager.default.contentsOfDirectory(atPath: folder.path + "/listed")).sorted())
        #expect(names.sorted() == [".hidden", "Zoë", "a b", "run.json.tmp-12", "sub"].sorted())
        #expect(ProcessEnvironment.names(in: folder.path + "/missing") == nil)
    }

    /// A temporary file's owner is the number after its last `.tmp-`, as `range(of:options: .backwards)` found it.
    @Test func aTemporaryFilesOwnerIsTheNumberAfterItsLastMarker() {
        #expect(RunStore.temporaryFileOwner("run.json.tmp-4242") == 4242)
        #expect(RunStore.temporaryFileOwner("a.tmp-1.tmp-77") == 77)
        #expect(RunStore.temporaryFileOwner(".tmp-5") == 5)
        for name in ["run.json", ".tmp-", "run.json.tmp-", "run.json.tmp-12x", "a.tmp-12.json", "tmp-12", "run.json.tmp-99999999999"] {
            #expect(RunStore.temporaryFileOwner(name) == nil, "\(name)")
        }
    }

    /// Observers of new secrets are told in the order they came, and a stopped one is not told
    /// (other tests register secrets meanwhile: only this test's values count).
    @Test func secretObserversAreToldInOrderUntilStopped() {
        let (told, first, second) = (NSLock(), "observed-secret-" + UUID().uuidString, "observed-secret-" + UUID().uuidString)
        nonisolated(unsafe) var order: [String] = []
        func observer(_ name: String) -> @Sendable ([String]) -> Void {
            { values in told.withLock { for value in values where value == first || value == second { order.append(name + " " + value) } } }
        }
        let ids = ["a", "b", "c"].map { RuntimeSecrets.observe(observer($0)) }
        RuntimeSecrets.stopObserving(ids[1])
        RuntimeSecrets.register([first])
        RuntimeSecrets.stopObserving(ids[0])
        RuntimeSecrets.stopObserving(ids[2])
        RuntimeSecrets.register([second])
        told.withLock { #expect(order == ["a " + first, "c " + first]) }
    }
}
