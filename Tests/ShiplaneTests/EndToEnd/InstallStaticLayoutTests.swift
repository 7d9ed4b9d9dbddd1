import Foundation
import Testing

/// `Scripts/install`'s static path (a Linux build folder named `release`): what it places, from a
/// small build folder laid out as SwiftPM's, with two assembled objects instead of Shiplane's.
/// It proves the placing, not that a lane links against the result (the bundle's checks do that).
@Suite("Scripts/install: a release build folder installs static lanes", .offThePool)
struct InstallStaticLayoutTests {
    @Test func theStaticInstallLinksTheLibraryObjectsWithoutTheCommandsMain() throws {
        #if os(Linux)
        let root = NSTemporaryDirectory() + "shiplane-install-static-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let built = root + "/scratch/x86_64-unknown-linux-gnu/release"
        let files = FileManager.default
        for folder in ["Modules", "shiplane.product", "Kit.build", "shiplane.build"] {
            try files.createDirectory(atPath: built + "/" + folder, withIntermediateDirectories: true)
        }
        let environment = ProcessInfo.processInfo.environment
        // The library's object, and the command's own main, which the install must leave out.
        for (symbol, object) in [("shiplane_kit_probe", "Kit.build/kit.o"), ("shiplane_command_main", "shiplane.build/main.o")] {
            let source = root + "/\(symbol).s"
            try ".text\n.globl \(symbol)\n\(symbol):\n ret\n".write(toFile: source, atomically: true, encoding: .utf8)
            let assembled = try runProgram("/usr/bin/env", ["as", source, "-o", built + "/" + object], in: root, environment: environment)
            #expect(assembled.status == 0, "\(assembled.all)")
        }
        try "'\(built)/Kit.build/kit.o'\n'\(built)/shiplane.build/main.o'\n"
            .write(toFile: built + "/shiplane.product/Objects.LinkFileList", atomically: true, encoding: .utf8)
        let command = "#!/bin/sh\necho the command\n"
        try command.write(toFile: built + "/shiplane", atomically: true, encoding: .utf8)
        try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: built + "/shiplane")
        try "module".write(toFile: built + "/Modules/Shiplane.swiftmodule", atomically: true, encoding: .utf8)
        try "tests".write(toFile: built + "/Modules/ShiplaneTests.swiftmodule", atomically: true, encoding: .utf8)
        // A shared-library install was here before: the static one replaces it.
        let prefix = root + "/prefix"
        let lib = prefix + "/lib/shiplane"
        try files.createDirectory(atPath: lib, withIntermediateDirectories: true)
        try "stale".write(toFile: lib + "/libShiplaneKit.so", atomically: true, encoding: .utf8)

        let install = try runProgram(
            packageRoot + "/Scripts/install", ["--prefix", prefix, "--from-build", built], in: root, environment: environment
        )
        #expect(install.status == 0, "\(install.all)")
        #expect(install.stderr.contains("installed \(prefix)/bin/shiplane"))

        #expect(try String(contentsOfFile: prefix + "/bin/shiplane", encoding: .utf8) == command)
        let mode = try files.attributesOfItem(atPath: prefix + "/bin/shiplane")[.posixPermissions] as? Int
        #expect(mode == 0o755)
        #expect(files.fileExists(atPath: lib + "/Modules/Shiplane.swiftmodule"))
        #expect(!files.fileExists(atPath: lib + "/Modules/ShiplaneTests.swiftmodule"))
        #expect(!files.fileExists(atPath: lib + "/libShiplaneKit.so"))
        let symbols = try runProgram("/usr/bin/env", ["nm", lib + "/static/libShiplaneKit.o"], in: root, environment: environment)
        #expect(symbols.status == 0, "\(symbols.all)")
        #expect(symbols.stdout.contains(" T shiplane_kit_probe"))
        #expect(!symbols.stdout.contains("shiplane_command_main"))
        // Nothing staged is left behind: only what the install names.
        let left = try files.contentsOfDirectory(atPath: lib).sorted()
        #expect(left == ["CModules", "Modules", "static"])
        #expect(try files.contentsOfDirectory(atPath: lib + "/static") == ["libShiplaneKit.o"])
        #expect(try files.contentsOfDirectory(atPath: prefix + "/bin") == ["shiplane"])
        #endif
    }
}
