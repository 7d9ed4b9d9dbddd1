import Foundation
import Shiplane

/// The pieces a lane compile needs: `swiftc`, and the prebuilt Shiplane library with its modules.
struct Toolchain {
    var swiftc: String
    /// The folder holding `libShiplaneKit.so` (or `.dylib`).
    var libraryFolder: String
    /// The folder holding `Shiplane.swiftmodule` and the modules it depends on.
    var moduleFolder: String
    /// Extra compiler flags. None are needed: Shiplane's modules are built with library
    /// evolution, so their C and SwiftNIO dependencies stay private to the library.
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
            return Toolchain(
                swiftc: swiftc, libraryFolder: standardized(candidate.library),
                moduleFolder: standardized(candidate.modules), extraFlags: []
            )
        }
        throw EnvironmentProblem(
            "the Shiplane library (\(libraryFileName) and Modules/Shiplane.swiftmodule) was not found next to \(executable)",
            suggestion: "build with `swift build` in the Shiplane checkout (it builds the library beside the executable), or install with Scripts/install",
            info: [("looked in", candidates.map(\.library).map(standardized).joined(separator: ", "))]
        )
    }

    private static func standardized(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}
