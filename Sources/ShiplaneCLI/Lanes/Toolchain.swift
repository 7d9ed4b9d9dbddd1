import Foundation
import Shiplane

/// The pieces a lane compile needs: `swiftc`, and the prebuilt Shiplane library with its modules.
struct Toolchain {
    var swiftc: String
    /// The folder holding `libShiplaneKit.so` (or `.dylib`), or, in a Linux bundle, `static/`
    /// with the library as one relocatable object (`linksStatically`).
    var libraryFolder: String
    /// The folder holding `Shiplane.swiftmodule` and the modules it depends on; in a bundle
    /// (`Scripts/bundle`), `Shiplane.swiftinterface` and the interfaces it imports, with or without
    /// their `.swiftmodule` (a compiler that cannot read those builds the modules from the interfaces).
    var moduleFolder: String
    /// True when lanes link statically: `libraryFolder/static/` holds `libShiplaneKit.o` (the
    /// library's objects as one relocatable object) with libgit2 and the libraries it needs
    /// (`Scripts/bundle` on Linux). The lane program then
    /// carries the Swift runtime, Foundation and Shiplane itself, and starts without loading or
    /// binding a shared library of its own (about 19 ms of CPU down to 7 ms for a no-op lane).
    var linksStatically = false
    /// In a SwiftPM release build folder on Linux (`swift build -c release`): SwiftPM's list of the
    /// shared library's objects (`ShiplaneKit.product/Objects.LinkFileList`). Lanes then link
    /// statically as in a bundle, against those objects made into one relocatable object in the
    /// lane cache (`BuildFolderObject`), once per build of the library; `libraryFile` stays the
    /// shared library, whose stamp changes with every build.
    var buildFolderObjects: String?
    /// That relocatable object, once made for a compile (`BuildFolderObject.prepared`).
    var buildFolderObject: String?

    /// The folder of the static archives, when lanes link statically.
    var staticFolder: String {
        buildFolderObject.map { ($0 as NSString).deletingLastPathComponent } ?? libraryFolder + "/" + Self.staticFolderName
    }

    /// The library lane programs link against: the relocatable object or the shared library. Its
    /// size, modification time and inode are part of the lane cache key.
    var libraryFile: String {
        linksStatically && buildFolderObjects == nil ? staticFolder + "/" + Self.staticLibraryFileName : libraryFolder + "/" + Self.libraryFileName
    }

    /// The file a static lane program links whole: the bundle's or the one made from the build folder.
    var staticObject: String { buildFolderObject ?? staticFolder + "/" + Self.staticLibraryFileName }

    /// The compiler's link arguments for a lane program.
    ///
    /// Shared: `-lShiplaneKit`, found through a run path. Static: `-static-stdlib` and the object
    /// (which names libgit2 and zlib, found in `static/`), linked whole — an archive would let the
    /// linker leave out objects that only the Swift runtime reaches (conformance records found by
    /// lookup), and NIOPosix crashed without them —, as a position-dependent
    /// executable (no start-up relocation of its 100 MB), whose own symbols stay out of the
    /// dynamic symbol table: `-static-stdlib` asks for `-export-dynamic`, and its
    /// `--exclude-libs ALL` keeps only archives' symbols out, so the object's 45,000 symbols were
    /// all exported, and each `dladdr` the runtime makes at start walked them (an empty lane
    /// program: 625 page faults against 562 without them, 5.8 ms of CPU against 3.6 ms, perf
    /// stat -r 30 at load 7). Both with the toolchain's `lld` when it has one: a static lane
    /// program links in about a second with it, several with gold, and a whole lane compile
    /// against the shared library takes 418 ms against 544 ms with gold (hyperfine, 8 runs each,
    /// the same `swiftc` command).
    var linkArguments: [String] {
        var arguments = linksStatically
            ? ["-static-stdlib", "-Xlinker", "-no-pie", "-Xlinker", "--no-export-dynamic", "-L", staticFolder, staticObject]
            : ["-L", libraryFolder, "-lShiplaneKit", "-Xlinker", "-rpath", "-Xlinker", libraryFolder]
        #if os(Linux)
        if FileManager.default.isExecutableFile(atPath: Self.compilerFolder(of: swiftc) + "/ld.lld") {
            arguments.append("-use-ld=lld")
        }
        #endif
        return arguments
    }

    /// Where lanes link statically, the compiler must have the static Swift runtime
    /// (`usr/lib/swift_static`, which swift.org's Linux toolchains and Swift's images carry).
    /// - Throws: `EnvironmentProblem` naming what is missing, before any compile starts.
    func checkStaticRuntime() throws {
        guard linksStatically else { return }
        let runtime = (Self.compilerFolder(of: swiftc) as NSString).deletingLastPathComponent + "/lib/swift_static/linux/static-stdlib-args.lnk"
        guard FileManager.default.fileExists(atPath: runtime) else {
            throw EnvironmentProblem(
                "the Swift toolchain of \(swiftc) has no static Swift runtime (\(runtime) is missing), which lanes link against in this bundle",
                suggestion: "use a toolchain from swift.org or a swift Docker image (they include usr/lib/swift_static), or build Shiplane from source with Scripts/install"
            )
        }
    }

    /// The folder of the compiler's real executable (`swiftc` is usually a link to
    /// `swift-driver`), where its `clang` and `ld.lld` are, with `lib/` one level up.
    static func compilerFolder(of swiftc: String) -> String {
        ((resolvedPath(swiftc) ?? swiftc) as NSString).deletingLastPathComponent
    }

    /// The files in `moduleFolder` that name the lane API's build: a lane compiled against other
    /// ones is compiled again.
    var moduleFiles: [String] {
        ["Shiplane.swiftmodule", "Shiplane.swiftinterface"].map { moduleFolder + "/" + $0 }
    }
    /// Extra compiler flags: one `-fmodule-map-file` per C module beneath Shiplane. Its Swift
    /// modules are built without library evolution (SwiftPM accepts no such flag from a
    /// dependency), so a lane compile loads every module they import, C modules included.
    /// Looked for only when asked (a compile, `shiplane edit`): in a SwiftPM build folder that
    /// means walking the checkouts, which a cached run must not pay for.
    var extraFlags: [String] {
        CModuleMaps.find(libraryFolder: libraryFolder).flatMap { ["-Xcc", "-fmodule-map-file=" + $0] }
    }

    static let staticFolderName = "static"
    static let staticLibraryFileName = "libShiplaneKit.o"

    static var libraryFileName: String {
        #if os(macOS)
        "libShiplaneKit.dylib"
        #else
        "libShiplaneKit.so"
        #endif
    }

    /// Finds `swiftc` (`SHIPLANE_SWIFTC`, else `PATH`) and the library next to the running
    /// executable: `.build/<config>/` when built with SwiftPM, `<prefix>/lib/shiplane/` when installed
    /// or unpacked from a bundle (`Shiplane.swiftmodule` or `Shiplane.swiftinterface` in `Modules/`).
    static func locate(environment: [String: String], executable: String) throws -> Toolchain {
        let swiftcName = environment["SHIPLANE_SWIFTC"] ?? "swiftc"
        guard let swiftc = findExecutable(swiftcName, path: environment["PATH"], workingDirectory: nil) else {
            throw EnvironmentProblem(
                "swiftc was not found: Shiplane compiles Lanes/*.swift with it",
                suggestion: "install a Swift toolchain (6.0 or later) and put swiftc on PATH, or set SHIPLANE_SWIFTC to its path",
                info: [("PATH", environment["PATH"] ?? "(unset)")]
            )
        }
        let folder = (resolved(executable) as NSString).deletingLastPathComponent
        let candidates = [
            (library: folder, modules: folder + "/Modules"),
            (library: folder + "/../lib/shiplane", modules: folder + "/../lib/shiplane/Modules"),
        ]
        let manager = FileManager.default
        for candidate in candidates
        where manager.fileExists(atPath: candidate.modules + "/Shiplane.swiftmodule")
            || manager.fileExists(atPath: candidate.modules + "/Shiplane.swiftinterface") {
            let archive = manager.fileExists(atPath: "\(candidate.library)/\(staticFolderName)/\(staticLibraryFileName)")
            guard archive || manager.fileExists(atPath: candidate.library + "/" + libraryFileName) else { continue }
            let libraryFolder = resolved(candidate.library)
            let objects = archive ? nil : BuildFolderObject.objectList(libraryFolder: libraryFolder, swiftc: swiftc, environment: environment)
            return Toolchain(
                swiftc: swiftc, libraryFolder: libraryFolder, moduleFolder: resolved(candidate.modules),
                linksStatically: archive || objects != nil, buildFolderObjects: objects
            )
        }
        throw EnvironmentProblem(
            "the Shiplane library (\(libraryFileName) or \(staticFolderName)/\(staticLibraryFileName), and Modules/Shiplane.swiftmodule or .swiftinterface) was not found next to \(executable)",
            suggestion: "build with `swift build` in the Shiplane checkout (it builds the library beside the executable), install with Scripts/install, or unpack a release bundle whole (bin/ and lib/ side by side)",
            info: [("looked in", candidates.map(\.library).map(standardized).joined(separator: ", "))]
        )
    }

    /// `path` with symbolic links and `.`/`..` resolved by the C library (`realpath`); `path` itself
    /// when that fails. Not `URL`'s standardizing: in a 100 MB static program its first use costs
    /// a scan of every protocol conformance, on the start of every lane.
    private static func resolved(_ path: String) -> String {
        resolvedPath(path) ?? path
    }

    private static func standardized(_ path: String) -> String {
        (path as NSString).standardizingPath
    }
}

/// The Clang module maps of the C modules Shiplane's Swift modules import (libgit2, zlib, and the
/// shims of SwiftNIO, AsyncHTTPClient and swift-crypto).
///
/// Installed (`Scripts/install`), each sits in `lib/shiplane/CModules/NAME/`. In a SwiftPM build
/// folder they are where SwiftPM left them: generated maps in `NAME.build/`, and the maps that
/// packages ship in `checkouts/*/Sources/*/` and in the root package's `Sources/*/`.
enum CModuleMaps {
    static func find(libraryFolder: String) -> [String] {
        let manager = FileManager.default
        let installed = libraryFolder + "/CModules"
        var candidates: [String] = []
        if manager.fileExists(atPath: installed) {
            candidates = children(of: installed).map { "\(installed)/\($0)/module.modulemap" }
        } else {
            candidates = children(of: libraryFolder).filter { $0.hasSuffix(".build") }
                .map { "\(libraryFolder)/\($0)/module.modulemap" }
            // `.build/<triple>/debug` or `.build/debug`: the scratch folder holding `checkouts`
            // is one or two levels up, and the package it builds is above that.
            var folder = URL(fileURLWithPath: libraryFolder)
            for _ in 0..<3 {
                folder.deleteLastPathComponent()
                let checkouts = folder.path + "/checkouts"
                guard manager.fileExists(atPath: checkouts) else { continue }
                for package in children(of: checkouts) {
                    candidates += shippedMaps(in: "\(checkouts)/\(package)/Sources")
                }
                candidates += shippedMaps(in: folder.deletingLastPathComponent().path + "/Sources")
                break
            }
        }
        var seen = Set<String>()
        var maps: [String] = []
        for path in candidates {
            guard let data = manager.contents(atPath: path), let name = moduleName(String(decoding: data, as: UTF8.self)) else { continue }
            if seen.insert(name).inserted { maps.append(path) }
        }
        return maps
    }

    /// The name a module map declares first: `module NAME`, `framework module NAME`, `explicit module NAME`.
    static func moduleName(_ text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "{" })
            guard let index = words.firstIndex(of: "module"), index + 1 < words.count,
                  words[..<index].allSatisfy({ $0 == "framework" || $0 == "explicit" }) else { continue }
            return String(words[index + 1])
        }
        return nil
    }

    private static func shippedMaps(in sources: String) -> [String] {
        children(of: sources).flatMap { target in
            ["\(sources)/\(target)/include/module.modulemap", "\(sources)/\(target)/module.modulemap"]
        }
    }

    private static func children(of folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }
}
