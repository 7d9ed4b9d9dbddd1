import Foundation
import Testing
@testable import Shiplane
@testable import ShiplaneCLI

/// A SwiftPM release build folder (`swift build -c release`): lanes link its library's objects
/// statically, as in a bundle, made into one relocatable object in the lane cache.
@Suite("BuildFolderObject: a release build folder's lanes link statically", .offThePool)
struct BuildFolderObjectTests {
    /// `FOLDER/shiplane`, `libShiplaneKit.so`, `Modules/Shiplane.swiftmodule` and SwiftPM's list of
    /// the library's objects, as `swift build` leaves them.
    static func buildFolder(_ folder: String, objects: [String] = []) throws -> String {
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder + "/Modules", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: folder + "/ShiplaneKit.product", withIntermediateDirectories: true)
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: folder + "/shiplane"))
        try Data().write(to: URL(fileURLWithPath: folder + "/" + Toolchain.libraryFileName))
        try Data().write(to: URL(fileURLWithPath: folder + "/Modules/Shiplane.swiftmodule"))
        try Data(objects.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: folder + "/" + BuildFolderObject.listPath))
        return folder + "/shiplane"
    }

    static var environment: [String: String] { ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"] }

    /// Whether the toolchain running the tests can link lanes statically (its static runtime and lld).
    static func toolchainLinksStatically(_ swiftc: String) -> Bool {
        let compiler = Toolchain.compilerFolder(of: swiftc)
        return FileManager.default.fileExists(atPath: (compiler as NSString).deletingLastPathComponent + "/lib/swift_static/linux/static-stdlib-args.lnk")
            && FileManager.default.isExecutableFile(atPath: compiler + "/ld.lld")
    }

    @Test func aReleaseFolderLinksStaticallyADebugFolderAgainstTheSharedLibrary() throws {
        let folder = try TemporaryRepository(commit: false)
        let release = try Toolchain.locate(environment: Self.environment, executable: try Self.buildFolder(folder.root + "/.build/release"))
        let debug = try Toolchain.locate(environment: Self.environment, executable: try Self.buildFolder(folder.root + "/.build/debug"))
        #expect(!debug.linksStatically && debug.buildFolderObjects == nil)
        #if os(Linux)
        guard Self.toolchainLinksStatically(release.swiftc) else { return }
        #expect(release.linksStatically)
        #expect(release.buildFolderObjects == folder.root + "/.build/release/" + BuildFolderObject.listPath)
        // The cache key stamps the shared library, which every build of the library rewrites.
        #expect(release.libraryFile == folder.root + "/.build/release/" + Toolchain.libraryFileName)
        #else
        #expect(!release.linksStatically)
        #endif
    }

    /// The objects become one relocatable object in the lane cache, made once per build of the
    /// library, and the lane links it whole with the static Swift runtime; when it cannot be made,
    /// the lane links against the shared library.
    @Test func theObjectIsMadeOnceAndLinkedWhole() throws {
        #if os(Linux)
        let folder = try TemporaryRepository(commit: false)
        let sources = folder.root + "/objects"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        var objects: [String] = []
        let probe = try Toolchain.locate(environment: Self.environment, executable: try Self.buildFolder(folder.root + "/probe/release"))
        guard Self.toolchainLinksStatically(probe.swiftc) else { return }
        let clang = Toolchain.compilerFolder(of: probe.swiftc) + "/clang"
        for name in ["one", "two"] {
            try Data("int shiplane_test_\(name)(void) { return 1; }\n".utf8).write(to: URL(fileURLWithPath: "\(sources)/\(name).c"))
            let compiled = try LaneCompiler.runCompiler(clang, arguments: ["-c", "\(sources)/\(name).c", "-o", "\(sources)/\(name).o"], environment: Self.environment)
            try #require(compiled.status == 0, "\(compiled.output)")
            objects.append("\(sources)/\(name).o")
        }
        let executable = try Self.buildFolder(folder.root + "/.build/release", objects: objects)
        let toolchain = try Toolchain.locate(environment: Self.environment, executable: executable)
        let cache = folder.root + "/cache"
        let linking = BuildFolderObject.prepared(toolchain, cacheFolder: cache, environment: Self.environment, stoppingWhen: { false })
        let object = try #require(linking.buildFolderObject)
        #expect(object.hasPrefix(cache + "/" + BuildFolderObject.cacheFolderName + "/"))
        let symbols = try LaneCompiler.runCompiler(Toolchain.compilerFolder(of: probe.swiftc) + "/llvm-nm", arguments: [object], environment: Self.environment)
        #expect(symbols.output.contains("shiplane_test_one") && symbols.output.contains("shiplane_test_two"), "\(symbols.output)")
        let arguments = linking.linkArguments
        #expect(Array(arguments.prefix(8)) == ["-static-stdlib", "-Xlinker", "-no-pie", "-Xlinker", "--no-export-dynamic", "-L", (object as NSString).deletingLastPathComponent, object])
        #expect(!arguments.contains("-lShiplaneKit"))
        // Made once: a second compile of the same build takes it as it is.
        let made = LaneCompiler.stamp(object)
        #expect(BuildFolderObject.prepared(toolchain, cacheFolder: cache, environment: Self.environment, stoppingWhen: { false }).buildFolderObject == object)
        #expect(LaneCompiler.stamp(object) == made)
        // An object the list names is gone (a build folder half cleaned): the shared library, nothing left behind.
        try FileManager.default.removeItem(atPath: objects[1])
        try Data("changed".utf8).write(to: URL(fileURLWithPath: folder.root + "/.build/release/" + Toolchain.libraryFileName))
        let fallback = BuildFolderObject.prepared(toolchain, cacheFolder: cache, environment: Self.environment, stoppingWhen: { false })
        #expect(!fallback.linksStatically && fallback.buildFolderObject == nil)
        #expect(fallback.linkArguments.contains("-lShiplaneKit"))
        let left = try FileManager.default.contentsOfDirectory(atPath: cache + "/" + BuildFolderObject.cacheFolderName).flatMap {
            try FileManager.default.contentsOfDirectory(atPath: cache + "/" + BuildFolderObject.cacheFolderName + "/" + $0)
        }
        #expect(left == ["libShiplaneKit.o"], "only the first build's object, no partial one")
        #endif
    }
}
