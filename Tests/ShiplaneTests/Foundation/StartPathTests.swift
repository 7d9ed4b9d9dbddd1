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
