import Foundation
import Shiplane

/// Static lane programs from a SwiftPM release build folder (`swift build -c release`) on Linux.
///
/// A lane program linked against `libShiplaneKit.so` and the toolchain's shared Swift libraries
/// spends most of a cached no-op lane's start in the dynamic loader: some 17,000 symbol
/// relocations into a dozen Swift libraries and a 100 MB shared library, and the relative
/// relocations of all of them. A bundle and a release install link lanes statically instead
/// (`Toolchain.linksStatically`); a release build folder can too, since SwiftPM leaves the list of
/// the library's objects beside it (`ShiplaneKit.product/Objects.LinkFileList`). Those objects are
/// made into one relocatable object (`ld.lld -r`, as `Scripts/install` does with `ld -r`: an
/// archive would let the linker leave out objects only the Swift runtime reaches) in the lane
/// cache, once per build of the library, and lanes link it whole with `-static-stdlib`.
///
/// Only where every piece is there: a folder named `release` (a debug build's objects are twice
/// the size and a test run compiles hundreds of lanes), the list, the toolchain's static Swift
/// runtime and its `ld.lld`. When making the object fails, the lanes link against the shared
/// library as before.
enum BuildFolderObject {
    static let listPath = "ShiplaneKit.product/Objects.LinkFileList"
    static let cacheFolderName = "build-objects"

    /// The object list of a release build folder whose lanes can link statically; nil otherwise.
    /// On the path of every cached run: a few `stat`s, no process.
    static func objectList(libraryFolder: String, swiftc: String, environment: [String: String]) -> String? {
        #if os(Linux)
        guard (libraryFolder as NSString).lastPathComponent == "release" else { return nil }
        let list = libraryFolder + "/" + listPath
        let compiler = Toolchain.compilerFolder(of: swiftc)
        let manager = FileManager.default
        guard manager.fileExists(atPath: list),
              manager.fileExists(atPath: (compiler as NSString).deletingLastPathComponent + "/lib/swift_static/linux/static-stdlib-args.lnk"),
              manager.isExecutableFile(atPath: compiler + "/ld.lld") else { return nil }
        return list
        #else
        return nil
        #endif
    }

    /// `toolchain` ready to link a lane program: with the relocatable object of its build folder
    /// (made now if this build of the library has none yet), or, when that cannot be made,
    /// linking against the shared library.
    static func prepared(_ toolchain: Toolchain, cacheFolder: String, environment: [String: String], stoppingWhen interrupted: @escaping @Sendable () -> Bool) -> Toolchain {
        guard let list = toolchain.buildFolderObjects else { return toolchain }
        var linking = toolchain
        if let object = object(list: list, library: toolchain.libraryFile, linker: Toolchain.compilerFolder(of: toolchain.swiftc) + "/ld.lld",
                               cacheFolder: cacheFolder, environment: environment, stoppingWhen: interrupted) {
            linking.buildFolderObject = object
        } else {
            linking.linksStatically = false
            linking.buildFolderObjects = nil
        }
        return linking
    }

    /// The relocatable object of the objects in `list`, in `cacheFolder/build-objects/KEY/`, KEY
    /// naming the list and the shared library linked from it (path, size, modification time and
    /// inode). Made under a temporary name and renamed, so a concurrent compile never links half
    /// of one; the objects of earlier builds are removed once an hour old.
    static func object(
        list: String, library: String, linker: String, cacheFolder: String, environment: [String: String],
        stoppingWhen interrupted: @escaping @Sendable () -> Bool
    ) -> String? {
        var fingerprint = Fingerprint()
        for path in [list, library] {
            fingerprint.add(path)
            fingerprint.add(LaneCompiler.stamp(path))
        }
        let parent = cacheFolder + "/" + cacheFolderName
        let folder = parent + "/" + fingerprint.hex
        let object = folder + "/libShiplaneKit.o"
        if FileManager.default.fileExists(atPath: object) { return object }
        guard (try? LaneCompiler.createCacheFolder(folder, cacheFolder: cacheFolder)) != nil else { return nil }
        let partial = "\(folder)/.libShiplaneKit.o.\(getpid())"
        // Without debug information: half the size, and a lane links it in about a second.
        let made = try? LaneCompiler.runCompiler(linker, arguments: ["-r", "--strip-debug", "@" + list, "-o", partial], environment: environment, stoppingWhen: interrupted)
        guard made?.status == 0, !interrupted(), rename(partial, object) == 0 else {
            unlink(partial)
            return nil
        }
        removeEarlierObjects(in: parent, except: folder)
        return object
    }

    private static func removeEarlierObjects(in parent: String, except kept: String) {
        let manager = FileManager.default
        let hourAgo = Date().addingTimeInterval(-3600)
        for name in (try? manager.contentsOfDirectory(atPath: parent)) ?? [] where parent + "/" + name != kept {
            let path = parent + "/" + name
            guard let modified = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date, modified < hourAgo else { continue }
            try? manager.removeItem(atPath: path)
        }
    }
}
