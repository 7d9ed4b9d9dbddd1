import Foundation
import Testing
@testable import Shiplane
@testable import ShiplaneCLI

/// An unpacked bundle (`Scripts/bundle`): `bin/shiplane` finds `lib/shiplane` beside it, with the
/// lane API as `.swiftinterface` files whether or not their `.swiftmodule` is there.
@Suite("Scripts/bundle: the bundle's layout is found, the script's inputs are checked", .offThePool)
struct BundleTests {
    /// `ROOT/bin/shiplane`, `ROOT/lib/shiplane/libShiplaneKit.*` (the shared library, the static
    /// archive in `static/` as the Linux bundle has it, or both) and `Modules/` holding `files`.
    static func unpacked(in root: String, modules files: [String], shared: Bool = true, archive: Bool = false) throws -> String {
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/bin", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: root + "/lib/shiplane/Modules", withIntermediateDirectories: true)
        try Data("#!/bin/sh\n".utf8).write(to: URL(fileURLWithPath: root + "/bin/shiplane"))
        if shared {
            try Data().write(to: URL(fileURLWithPath: root + "/lib/shiplane/" + Toolchain.libraryFileName))
        }
        if archive {
            try manager.createDirectory(atPath: root + "/lib/shiplane/static", withIntermediateDirectories: true)
            try Data("\u{7F}ELF".utf8).write(to: URL(fileURLWithPath: root + "/lib/shiplane/static/libShiplaneKit.o"))
        }
        for file in files {
            try Data("// swift-interface-format-version: 1.0\n".utf8).write(to: URL(fileURLWithPath: root + "/lib/shiplane/Modules/" + file))
        }
        return root + "/bin/shiplane"
    }

    @Test func anUnpackedBundleWithInterfacesOnlyIsFoundThroughALinkToo() throws {
        let folder = try TemporaryRepository(commit: false)
        let executable = try Self.unpacked(in: folder.root + "/opt/shiplane-1.0.0", modules: ["Shiplane.swiftinterface", "ShiplaneCLI.swiftinterface"])
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"]
        let found = try Toolchain.locate(environment: environment, executable: executable)
        #expect(found.moduleFolder == folder.root + "/opt/shiplane-1.0.0/lib/shiplane/Modules")
        #expect(found.libraryFolder == folder.root + "/opt/shiplane-1.0.0/lib/shiplane")
        #expect(found.extraFlags.isEmpty, "a bundle's interfaces import no C module")
        #expect(found.moduleFiles == [found.moduleFolder + "/Shiplane.swiftmodule", found.moduleFolder + "/Shiplane.swiftinterface"])
        // `~/.local/bin/shiplane -> /opt/shiplane-1.0.0/bin/shiplane`, as the README installs it.
        try FileManager.default.createDirectory(atPath: folder.root + "/local/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.root + "/local/bin/shiplane", withDestinationPath: executable)
        let linked = try Toolchain.locate(environment: environment, executable: folder.root + "/local/bin/shiplane")
        #expect(linked.moduleFolder == found.moduleFolder)
    }

    @Test func lanesLinkAgainstTheSharedLibraryThroughARunPath() throws {
        let folder = try TemporaryRepository(commit: false)
        let executable = try Self.unpacked(in: folder.root + "/opt", modules: ["Shiplane.swiftmodule"])
        let found = try Toolchain.locate(environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"], executable: executable)
        #expect(!found.linksStatically)
        #expect(found.libraryFile == found.libraryFolder + "/" + Toolchain.libraryFileName)
        let arguments = found.linkArguments
        #expect(Array(arguments.prefix(7)) == ["-L", found.libraryFolder, "-lShiplaneKit", "-Xlinker", "-rpath", "-Xlinker", found.libraryFolder])
        // lld when the compiler has one beside it (about a quarter off a lane compile), else the
        // compiler's default linker.
        let compilerFolder = URL(fileURLWithPath: found.swiftc).resolvingSymlinksInPath().deletingLastPathComponent().path
        #expect(arguments.dropFirst(7) == (FileManager.default.isExecutableFile(atPath: compilerFolder + "/ld.lld") ? ["-use-ld=lld"] : []))
    }

    /// The Linux bundle: `lib/shiplane/static/libShiplaneKit.o` and no shared library. Lanes link
    /// it statically with the Swift runtime (`-static-stdlib`), position-dependent, and the
    /// archive is what the lane cache key stamps; an archive beside a shared library wins.
    @Test(arguments: [false, true]) func lanesLinkTheStaticArchiveWhenTheBundleHasOne(alsoShared: Bool) throws {
        let folder = try TemporaryRepository(commit: false)
        let executable = try Self.unpacked(in: folder.root + "/opt", modules: ["Shiplane.swiftinterface"], shared: alsoShared, archive: true)
        let found = try Toolchain.locate(environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"], executable: executable)
        #expect(found.linksStatically)
        #expect(found.libraryFile == folder.root + "/opt/lib/shiplane/static/libShiplaneKit.o")
        let arguments = found.linkArguments
        #expect(Array(arguments.prefix(8)) == ["-static-stdlib", "-Xlinker", "-no-pie", "-Xlinker", "--no-export-dynamic", "-L", folder.root + "/opt/lib/shiplane/static", found.libraryFile])
        #expect(!arguments.contains("-lShiplaneKit") && !arguments.contains("-rpath"))
        // lld when the compiler has one beside it, else the compiler's default linker.
        let compilerFolder = URL(fileURLWithPath: found.swiftc).resolvingSymlinksInPath().deletingLastPathComponent().path
        #expect(arguments.contains("-use-ld=lld") == FileManager.default.isExecutableFile(atPath: compilerFolder + "/ld.lld"))
    }

    /// A compiler without the static Swift runtime cannot link a lane against the archive: a
    /// clear error before the compile, naming the missing folder; this machine's compiler has it.
    @Test func aCompilerWithoutTheStaticRuntimeIsAClearError() throws {
        let folder = try TemporaryRepository(commit: false)
        let executable = try Self.unpacked(in: folder.root + "/opt", modules: ["Shiplane.swiftinterface"], shared: false, archive: true)
        var found = try Toolchain.locate(environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"], executable: executable)
        try found.checkStaticRuntime()
        try FileManager.default.createDirectory(atPath: folder.root + "/toolchain/usr/bin", withIntermediateDirectories: true)
        found.swiftc = folder.root + "/toolchain/usr/bin/swiftc"
        #expect {
            try found.checkStaticRuntime()
        } throws: { error in
            let problem = error as? EnvironmentProblem
            return problem?.message == "the Swift toolchain of \(found.swiftc) has no static Swift runtime (\(folder.root)/toolchain/usr/lib/swift_static/linux/static-stdlib-args.lnk is missing), which lanes link against in this bundle"
                && problem?.suggestion?.contains("usr/lib/swift_static") == true
        }
    }

    @Test func aBundleWithoutTheLaneAPIIsAClearError() throws {
        let folder = try TemporaryRepository(commit: false)
        let executable = try Self.unpacked(in: folder.root + "/opt", modules: ["ArgumentParser.swiftinterface"])
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"]
        #expect {
            try Toolchain.locate(environment: environment, executable: executable)
        } throws: { error in
            let problem = error as? EnvironmentProblem
            return problem?.message.contains("Modules/Shiplane.swiftmodule or .swiftinterface) was not found next to") == true
                && problem?.suggestion?.contains("unpack a release bundle whole") == true
        }
    }

    @Test func theScriptNamesTheBundleAndRefusesBadInput() throws {
        let environment = ProcessInfo.processInfo.environment
        let name = try runProgram(packageRoot + "/Scripts/bundle", ["--name"], in: packageRoot, environment: environment)
        #expect(name.status == 0, "\(name.all)")
        #expect(name.stdout == "shiplane-\(ShiplaneVersion.current)-linux-\(Self.machine()).tar.gz\n")

        let unknown = try runProgram(packageRoot + "/Scripts/bundle", ["--fast"], in: packageRoot, environment: environment)
        #expect(unknown.status == 2)
        #expect(unknown.stderr == "Scripts/bundle: unknown option --fast (see --help)\n")

        let folder = try TemporaryRepository(commit: false)
        let missing = try runProgram(packageRoot + "/Scripts/bundle", ["--check", folder.root + "/none.tar.gz"], in: packageRoot, environment: environment)
        #expect(missing.status == 4)
        #expect(missing.stderr.contains("none.tar.gz does not exist: build it first (Scripts/bundle)"), "\(missing.all)")
    }

    /// A tool the build needs only at its end (patchelf) is asked for before anything is built:
    /// PATH holds every program of /usr/bin and /bin but patchelf.
    @Test func aMissingToolStopsTheBuildBeforeItStarts() throws {
        let folder = try TemporaryRepository(commit: false)
        let tools = folder.root + "/tools"
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        for directory in ["/usr/bin", "/bin"] {
            for program in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where program != "patchelf" {
                let target = directory + "/" + program
                guard FileManager.default.isExecutableFile(atPath: target), !FileManager.default.fileExists(atPath: tools + "/" + program) else { continue }
                try FileManager.default.createSymbolicLink(atPath: tools + "/" + program, withDestinationPath: target)
            }
        }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = tools
        let output = folder.root + "/dist"
        let built = try runProgram(packageRoot + "/Scripts/bundle", ["--output", output], in: packageRoot, environment: environment)
        #expect(built.status == 4, "\(built.all)")
        #expect(built.stderr == "Scripts/bundle: missing tools: patchelf (apt-get install patchelf binutils); nothing was built\n", "\(built.all)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    /// A tarball whose digest differs from its line in SHA256SUMS is refused before it is unpacked.
    @Test func theCheckRefusesATarballThatDoesNotMatchItsSum() throws {
        let folder = try TemporaryRepository(commit: false)
        let name = "shiplane-1.0.0-linux-x86_64"
        _ = try Self.unpacked(in: folder.root + "/tree/" + name, modules: ["Shiplane.swiftinterface"])
        let environment = ProcessInfo.processInfo.environment
        let tar = try runProgram("/usr/bin/env", ["tar", "-czf", folder.root + "/\(name).tar.gz", "-C", folder.root + "/tree", name], in: folder.root, environment: environment)
        #expect(tar.status == 0, "\(tar.all)")
        try Data("\(String(repeating: "0", count: 64))  \(name).tar.gz\n".utf8).write(to: URL(fileURLWithPath: folder.root + "/SHA256SUMS"))
        let check = try runProgram(packageRoot + "/Scripts/bundle", ["--check", folder.root + "/\(name).tar.gz"], in: packageRoot, environment: environment)
        #expect(check.status == 1)
        #expect(check.stderr.contains("\(name).tar.gz does not match \(folder.root)/SHA256SUMS"), "\(check.all)")
    }

    static func machine() -> String {
        var info = utsname()
        uname(&info)
        return withUnsafeBytes(of: &info.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
