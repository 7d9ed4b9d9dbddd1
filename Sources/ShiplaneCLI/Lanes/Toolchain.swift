import Foundation
import Shiplane

/// The pieces a lane compile needs: `swiftc`, and the prebuilt Shiplane library with its modules.
struct Toolchain {
    var swiftc: String
    /// The folder holding `libShiplaneKit.so` (or `.dylib`).
    var libraryFolder: String
    /// The folder holding `Shiplane.swiftmodule` and the modules it depends on.
    var moduleFolder: String
    /// Extra flags: module maps of C modules the Shiplane module refers to.
    var extraFlags: [String]

    static var libraryFileName: String {
        #if os(macOS)
        "libShiplaneKit.dylib"
        #else
        "libShiplaneKit.so"
        #endif
    }

    /// Finds `swiftc` (`SHIPLANE_SWIFTC`, else `PATH`) and the library next to the running
    /// executable: `.build/<config>/` when built with SwiftPM, `<prefix>/lib/shiplane/` when installed.
    static func locate(environment: [String: String], executable: String) throws -> Toolchain {
        let swiftcName = environment["SHIPLANE_SWIFTC"] ?? "swiftc"
        guard let swiftc = findExecutable(swiftcName, path: environment["PATH"], workingDirectory: nil) else {
            throw EnvironmentProblem(
                "swiftc was not found: Shiplane compiles Lanes/*.swift with it",
                suggestion: "install a Swift toolchain (6.0 or later) and put swiftc on PATH, or set SHIPLANE_SWIFTC to its path",
                info: [("PATH", environment["PATH"] ?? "(unset)")]
            )
        }
        let folder = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent().path
        let candidates = [
            (library: folder, modules: folder + "/Modules"),
            (library: folder + "/../lib/shiplane", modules: folder + "/../lib/shiplane/Modules"),
        ]
        let manager = FileManager.default
        for candidate in candidates
        where manager.fileExists(atPath: candidate.library + "/" + libraryFileName)
            && manager.fileExists(atPath: candidate.modules + "/Shiplane.swiftmodule") {
            guard let moduleMap = libgit2ModuleMap(near: candidate.library) else {
                throw EnvironmentProblem(
                    "the CLibgit2 module map that Shiplane's modules refer to was not found",
                    suggestion: "reinstall with Scripts/install (it copies CLibgit2/ beside the library)",
                    info: [("looked in", candidate.library + "/CLibgit2 and the Sources/CLibgit2 of the checkout")]
                )
            }
            return Toolchain(
                swiftc: swiftc, libraryFolder: standardized(candidate.library),
                moduleFolder: standardized(candidate.modules),
                extraFlags: ["-Xcc", "-fmodule-map-file=" + moduleMap]
            )
        }
        throw EnvironmentProblem(
            "the Shiplane library (\(libraryFileName) and Modules/Shiplane.swiftmodule) was not found next to \(executable)",
            suggestion: "build with `swift build` in the Shiplane checkout (it builds the library beside the executable), or install with Scripts/install",
            info: [("looked in", candidates.map(\.library).map(standardized).joined(separator: ", "))]
        )
    }

    /// The `CLibgit2` module map: beside an installed library, or in the checkout a SwiftPM
    /// build folder (`<checkout>/.build/<triple>/<config>`) belongs to. Lanes never import it,
    /// but the Swift modules they import were built against it, so the compiler loads it.
    private static func libgit2ModuleMap(near libraryFolder: String) -> String? {
        var folder = URL(fileURLWithPath: libraryFolder).standardizedFileURL
        let installed = folder.appendingPathComponent("CLibgit2/module.modulemap").path
        if FileManager.default.fileExists(atPath: installed) { return installed }
        for _ in 0..<4 {
            folder.deleteLastPathComponent()
            let candidate = folder.appendingPathComponent("Sources/CLibgit2/module.modulemap").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }

    private static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
