import Foundation
import Shiplane

/// Compiles `Lanes/*.swift` into an executable once, and finds it in the cache afterwards.
///
/// The cache key covers the lane sources (names and bytes), Shiplane's version, the library
/// and module files it compiles against (size and modification time), and `swiftc --version`.
/// A build goes to a staging folder and is published with one `rename`, so concurrent runs never
/// see a half-written executable; a run that finds the same key being compiled waits for that
/// compile (a lock per key) and takes its program.
struct LaneCompiler {
    var toolchain: Toolchain
    var cacheFolder: String
    var environment: [String: String]
    /// True once the compile should stop (an interrupt, `CompileInterruptWatch`): the compiler
    /// is stopped and the compile throws `CompileInterrupted`.
    var interrupted: @Sendable () -> Bool = { false }

    struct Compiled {
        var executable: String
        var compiled: Bool
        var seconds: TimeInterval

        /// What the lanes program said of its lanes when it was compiled; nil when it could not
        /// say (a declaration mistake, which running it reports) or was compiled before this file.
        var catalog: LaneCatalogFile? {
            LaneCatalogFile.load((executable as NSString).deletingLastPathComponent + "/" + LaneCatalogFile.fileName)
        }
    }

    /// The cache folder: `SHIPLANE_CACHE_DIR`, else `$XDG_CACHE_HOME/shiplane`, else `~/.cache/shiplane`.
    static func defaultCacheFolder(environment: [String: String]) -> String {
        if let folder = environment["SHIPLANE_CACHE_DIR"], !folder.isEmpty { return folder }
        if let xdg = environment["XDG_CACHE_HOME"], !xdg.isEmpty { return xdg + "/shiplane" }
        let home = environment["HOME"] ?? NSTemporaryDirectory()
        return home + "/.cache/shiplane"
    }

    /// The cached lanes executable for the lanes in `root/Lanes`, compiling it when needed.
    /// - Throws: `EnvironmentProblem` (no lanes), `CompileFailure` (the lanes do not compile).
    ///
    /// The lane declarations are read (`LaneDiscovery`) only when the cache misses: a cached
    /// program was compiled from these very sources (they are in the key), after the same reading
    /// found lanes and no problem in them, so a cached run skips it (a third of the supervisor's
    /// own work on a no-op lane, much of it NSString's first use).
    func executable(root: String, onCompileStart: () -> Void) throws -> Compiled {
        let (key, sources) = try cacheKey(root: root)
        let lanesCache = cacheFolder + "/lanes"
        let published = "\(lanesCache)/\(key)/lanes"
        if FileManager.default.isExecutableFile(atPath: published) {
            return Compiled(executable: published, compiled: false, seconds: 0)
        }
        // Read into tokens once: the lane declarations now, the signing keys they name when compiling.
        let lexed = sources.map { LaneSource(path: $0.relative, text: $0.text) }
        // Lane code imports Shiplane, not the modules Shiplane is built from (LaneImports), checked first: a
        // scoped import (`import struct M.X`) would otherwise read as a declaration.
        let importProblems = LaneImports.problems(
            in: lexed, buildModules: LaneImports.buildModules(moduleFolder: toolchain.moduleFolder, moduleMaps: CModuleMaps.find(libraryFolder: toolchain.libraryFolder)))
        guard importProblems.isEmpty else {
            throw CompileFailure(diagnostics: importProblems, command: "shiplane (reading the lane imports)")
        }
        let found = try Self.declarations(in: lexed, lanesFolder: root + "/Lanes")
        // One compile per key at a time: a run that finds another compiling these very lanes
        // (parallel CI jobs or test processes sharing the cache) waits for it and takes its
        // program instead of compiling the same bytes again beside it.
        let locks = cacheFolder + "/locks"
        try Self.createCacheFolder(locks, cacheFolder: cacheFolder)
        let waitStarted = Date()
        let keyLock = try lockKey(key, in: locks)
        defer { if keyLock >= 0 { close(keyLock) } }
        if FileManager.default.isExecutableFile(atPath: published) {
            return Compiled(executable: published, compiled: false, seconds: Date().timeIntervalSince(waitStarted))
        }
        return try compile(root: root, key: key, found: found, sources: lexed, onCompileStart: onCompileStart)
    }

    /// The name of a key's compile lock in the cache's `locks/` folder (`compiling-KEY`, an empty
    /// file kept: removing it could let a later run lock a new file while another waits on the old).
    static let keyLockPrefix = "compiling-"

    /// Takes `key`'s compile lock (released when the descriptor closes, or when its process dies:
    /// a killed compile never blocks the next), polling so that an interrupt stops the wait.
    /// Returns -1 when the lock file cannot be made (a read-only cache compiles unlocked, as before).
    private func lockKey(_ key: String, in locks: String) throws -> Int32 {
        let descriptor = open("\(locks)/\(Self.keyLockPrefix)\(key)", O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return -1 }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return descriptor }
            if interrupted() {
                close(descriptor)
                throw CompileInterrupted()
            }
            usleep(20_000)
        }
        return descriptor
    }

    /// The compiled lanes for `root` when the cache holds them; never compiles (for completion).
    func cachedExecutable(root: String) -> Compiled? {
        guard let (key, _) = try? cacheKey(root: root) else { return nil }
        let published = "\(cacheFolder)/lanes/\(key)/lanes"
        return FileManager.default.isExecutableFile(atPath: published) ? Compiled(executable: published, compiled: false, seconds: 0) : nil
    }

    /// The cache key of the lanes in `root/Lanes`, with the sources read to make it.
    private func cacheKey(root: String) throws -> (key: String, sources: [(relative: String, absolute: String, text: String)]) {
        let lanesFolder = root + "/Lanes"
        let files = try Self.laneFiles(in: lanesFolder, root: root)
        var sources: [(relative: String, absolute: String, text: String)] = []
        for file in files {
            guard let data = readWholeFile(file) else {
                throw EnvironmentProblem("could not read \(file)", suggestion: "check the file's permissions")
            }
            sources.append((String(file.dropFirst(root.count + 1)), file, String(decoding: data, as: UTF8.self)))
        }
        var fingerprint = Fingerprint()
        fingerprint.add("shiplane-lanes-v1")
        fingerprint.add(ShiplaneVersion.current)
        fingerprint.add(try compilerVersion())
        for path in [toolchain.libraryFile] + toolchain.moduleFiles {
            fingerprint.add(path)
            fingerprint.add(Self.stamp(path))
        }
        // A release build folder's lanes link statically (BuildFolderObject): not the program
        // an earlier Shiplane linked against the same shared library.
        if toolchain.buildFolderObjects != nil { fingerprint.add("linked statically from the build folder") }
        for source in sources {
            fingerprint.add(source.relative)
            fingerprint.add(source.text.utf8)
        }
        return (fingerprint.hex, sources)
    }

    /// The lanes, hooks and effect types declared in `sources`, for the generated entry point.
    /// - Throws: `CompileFailure` for a declaration mistake, `EnvironmentProblem` when there is no lane.
    static func declarations(in sources: [LaneSource], lanesFolder: String) throws -> LaneDiscovery.Found {
        let found = LaneDiscovery.scan(sources)
        guard found.problems.isEmpty else {
            throw CompileFailure(diagnostics: found.problems, command: "shiplane (reading the lane declarations)")
        }
        guard !found.lanes.isEmpty else {
            throw EnvironmentProblem(
                "no lanes found in \(lanesFolder)",
                suggestion: "declare a lane: `struct Release: Lane { func run(_ lane: LaneContext) async throws { ... } }` (see `shiplane init`)",
                info: [("files", sources.map(\.path).joined(separator: ", "))]
            )
        }
        return found
    }

    private func compile(
        root: String, key: String, found: LaneDiscovery.Found, sources: [LaneSource],
        onCompileStart: () -> Void
    ) throws -> Compiled {
        try toolchain.checkStaticRuntime()
        let lanesCache = cacheFolder + "/lanes"
        let published = "\(lanesCache)/\(key)/lanes"
        onCompileStart()
        let started = Date()
        let staging = "\(lanesCache)/\(Self.stagingPrefix)\(key)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try Self.createCacheFolder(staging, cacheFolder: cacheFolder)
        defer { try? FileManager.default.removeItem(atPath: staging) }
        // Held until this compile ends, however it ends: a staging folder whose lock is free was
        // left by a compile that was killed (SIGKILL runs no `defer`), and the next compile removes it.
        let owner = open(staging + "/" + Self.stagingOwner, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
        // Marked (one byte) once locked: an empty owner file is one being set up.
        if owner >= 0, flock(owner, LOCK_EX) == 0 { _ = write(owner, "1", 1) }
        defer { if owner >= 0 { close(owner) } }
        Self.removeAbandonedStaging(in: lanesCache, except: staging)
        let entry = staging + "/ShiplaneEntry.swift"
        let signingKeys = SigningKeyDiscovery.scan(sources)
        try Data(Self.entrySource(found, signingKeys: signingKeys).utf8).write(to: URL(fileURLWithPath: entry))
        let output = staging + "/lanes"
        // Whole-module: the lane files are few and small, and one frontend job that parses each
        // once beats a job per file that re-parses the others (0.93 s against 1.35 s by hand).
        var arguments = [
            "-module-name", "Lanes", "-parse-as-library", "-swift-version", "5", "-Onone", "-wmo",
            "-I", toolchain.moduleFolder, "-o", output,
        ]
        // In a release build folder: its objects made into one for static linking (once per build).
        let linking = BuildFolderObject.prepared(toolchain, cacheFolder: cacheFolder, environment: environment, stoppingWhen: interrupted)
        arguments += linking.linkArguments
        if linking.linksStatically, let archive = Self.staticCxxRuntime(swiftc: toolchain.swiftc, environment: environment) {
            // GCC's C++ runtime (which the static Swift runtime needs) and libgcc linked in too: a
            // lane program that loads and relocates libstdc++.so at every start spends about a
            // fifth of an empty lane's start in the loader. The archive comes with the library
            // the compiler links otherwise (libstdc++-dev, a dependency of Swift on Linux);
            // `-lstdc++` finds it first in a folder holding only a link to it.
            let folder = staging + "/stdcxx"
            if mkdir(folder, 0o755) == 0, symlink(archive, folder + "/libstdc++.a") == 0 {
                arguments += ["-L", folder, "-Xclang-linker", "-static-libgcc"]
            }
        }
        arguments += toolchain.extraFlags
        arguments += sources.map { root + "/" + $0.path }
        arguments.append(entry)
        let result = try Self.runCompiler(toolchain.swiftc, arguments: arguments, environment: environment, stoppingWhen: interrupted)
        if interrupted() { throw CompileInterrupted() }
        guard result.status == 0, FileManager.default.isExecutableFile(atPath: output) else {
            throw CompileFailure(
                diagnostics: Self.userFacingDiagnostics(result.output, root: root, entry: entry),
                command: "swiftc " + arguments.joined(separator: " ")
            )
        }
        try? FileManager.default.removeItem(atPath: staging + "/stdcxx")
        // Published with the executable (one rename), or not at all: then `lanes` asks the program.
        if let catalog = Self.askCatalog(of: output, root: root, environment: environment, stoppingWhen: interrupted), let data = try? catalog.encoded() {
            try? writeAtomically(data, to: staging + "/" + LaneCatalogFile.fileName)
        }
        // Interrupted while the program was asked for its catalog: nothing is published.
        if interrupted() { throw CompileInterrupted() }
        let target = "\(lanesCache)/\(key)"
        if rename(staging, target) != 0 && !FileManager.default.isExecutableFile(atPath: published) {
            throw EnvironmentProblem(
                "could not publish the compiled lanes to \(target): \(String(cString: strerror(errno)))",
                suggestion: "check that \(cacheFolder) is writable, or set SHIPLANE_CACHE_DIR"
            )
        }
        return Compiled(executable: published, compiled: true, seconds: Date().timeIntervalSince(started))
    }

    /// The name of a compile's staging folder starts so (`.staging-KEY-PID-RANDOM`).
    static let stagingPrefix = ".staging-"
    /// The file in a staging folder whose lock its compile holds while it runs.
    static let stagingOwner = ".owner"

    /// Removes the staging folders compiles killed midway left in `lanesCache`: those whose owner
    /// lock is free (its process is gone, in this container or another sharing the cache), and,
    /// with no marked owner file (made before it existed, or being set up), those whose process id is gone.
    static func removeAbandonedStaging(in lanesCache: String, except own: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: lanesCache) else { return }
        for name in names where name.hasPrefix(stagingPrefix) && lanesCache + "/" + name != own {
            let folder = lanesCache + "/" + name
            let owner = open(folder + "/" + stagingOwner, O_RDWR | O_CLOEXEC)
            let abandoned: Bool
            var owned = stat()
            if owner >= 0, fstat(owner, &owned) == 0, owned.st_size > 0 {
                abandoned = flock(owner, LOCK_EX | LOCK_NB) == 0
                close(owner)
            } else {
                if owner >= 0 { close(owner) }
                let parts = name.split(separator: "-")
                let pid = parts.count >= 4 ? Int32(parts[parts.count - 2]) : nil
                abandoned = pid.map { $0 > 0 && kill($0, 0) != 0 && errno == ESRCH } ?? false
            }
            if abandoned { try? FileManager.default.removeItem(atPath: folder) }
        }
    }

    /// Every `.swift` file under `Lanes/` (subfolders too), sorted, skipping hidden ones.
    /// Creates `folder` inside the lane cache.
    /// - Throws: `EnvironmentProblem` naming the cache and what is in the way (a file where a
    ///   folder should be, no permission), with how to choose another cache.
    static func createCacheFolder(_ folder: String, cacheFolder: String) throws {
        var current = folder
        var isFolder: ObjCBool = false
        while current.count > 1, !FileManager.default.fileExists(atPath: current, isDirectory: &isFolder) {
            current = (current as NSString).deletingLastPathComponent
        }
        if FileManager.default.fileExists(atPath: current, isDirectory: &isFolder), !isFolder.boolValue {
            throw EnvironmentProblem(
                "the lane cache cannot be made: \(current) is a file, not a folder",
                suggestion: "move that file away, or set SHIPLANE_CACHE_DIR to a folder of your own",
                info: [("cache", cacheFolder)]
            )
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw EnvironmentProblem(
                "the lane cache cannot be made in \(cacheFolder)", suggestion: "check that it is writable, or set SHIPLANE_CACHE_DIR",
                info: [("reason", describe(error))]
            )
        }
    }

    /// The `.swift` files under `folder` (its subfolders too; no name starting with a dot), sorted.
    ///
    /// Read with `opendir`/`readdir`: a cached run lists its lanes at every start, and Foundation's
    /// directory enumerator cost about 0.4 ms of CPU for one file (NSString path handling), a
    /// tenth of the supervisor's own work on a no-op lane. Symbolic links are listed, as files
    /// (a link to a folder is not entered), as the enumerator listed them.
    static func laneFiles(in folder: String, root: String) throws -> [String] {
        var status = stat()
        guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw EnvironmentProblem(
                "no Lanes/ folder in \(root)",
                suggestion: "run `shiplane init` to create Lanes/ with a first lane, or use the commands that need none: `shiplane version`, `shiplane bump`, `shiplane changelog`"
            )
        }
        var files: [String] = []
        var pending = [folder]
        while let current = pending.popLast() {
            guard let directory = opendir(current) else {
                throw EnvironmentProblem(
                    "could not read the folder \(current)", suggestion: "check its permissions",
                    info: [("reason", String(cString: strerror(errno)))]
                )
            }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                if name.hasPrefix(".") { continue }
                let path = current + "/" + name
                var isFolder = Int32(entry.pointee.d_type) == Int32(DT_DIR)
                if Int32(entry.pointee.d_type) == Int32(DT_UNKNOWN) {
                    var linkStatus = stat()
                    isFolder = lstat(path, &linkStatus) == 0 && linkStatus.st_mode & S_IFMT == S_IFDIR
                }
                if isFolder {
                    pending.append(path)
                } else if name.hasSuffix(".swift") {
                    files.append(path)
                }
            }
        }
        guard !files.isEmpty else {
            throw EnvironmentProblem("Lanes/ holds no Swift files", suggestion: "run `shiplane init`, or add Lanes/Release.swift with a lane")
        }
        return files.sorted()
    }

    static func entrySource(_ found: LaneDiscovery.Found, signingKeys: [NamedSigningKey] = []) -> String {
        func literal(_ text: String?) -> String { text.map(swiftStringLiteral) ?? "nil" }
        let keys = signingKeys.map { key -> String in
            let (use, format): (String, String?) = switch key.use {
            case .files(let format): ("sign", format)
            case .provenance(let format): ("provenance", format)
            case .commit: ("commit", nil)
            case .tag: ("tag", nil)
            }
            return "(\(literal(use)), \(literal(format)), \(literal(key.variable)), \(literal(key.location)))"
        }
        return """
        // Generated by shiplane: the entry point of the lanes executable.
        import Shiplane
        import ShiplaneCLI

        @main
        enum ShiplaneGeneratedEntry {
            static func main() async {
                await LaneHost.main(
                    lanes: [\(found.lanes.map { "\($0).self" }.joined(separator: ", "))],
                    hooks: [\(found.hooks.map { "\($0).self" }.joined(separator: ", "))],
                    locations: [\(found.locations.map(swiftStringLiteral).joined(separator: ", "))],
                    effects: [\(found.effects.map { "\($0).self" }.joined(separator: ", "))],
                    signingKeys: [\(keys.joined(separator: ", "))]
                )
            }
        }

        """
    }

    /// `swiftc --version`, remembered per compiler binary (path, size, modification time).
    func compilerVersion() throws -> String {
        let real = resolvedPath(toolchain.swiftc) ?? toolchain.swiftc
        var key = Fingerprint()
        key.add(real)
        key.add(Self.stamp(real))
        let memo = "\(cacheFolder)/toolchains/\(key.hex)"
        if let data = readWholeFile(memo), !data.isEmpty {
            return String(decoding: data, as: UTF8.self)
        }
        let result = try Self.runCompiler(toolchain.swiftc, arguments: ["--version"], environment: environment, stoppingWhen: interrupted)
        if interrupted() { throw CompileInterrupted() }
        guard result.status == 0 else {
            throw EnvironmentProblem("`\(toolchain.swiftc) --version` failed", info: [("output", result.output)])
        }
        try? FileManager.default.createDirectory(atPath: cacheFolder + "/toolchains", withIntermediateDirectories: true)
        try? writeAtomically(Data(result.output.utf8), to: memo)
        return result.output
    }

    static func stamp(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "missing" }
        #if os(Linux)
        let modified = info.st_mtim
        #else
        let modified = info.st_mtimespec
        #endif
        return "\(info.st_size)-\(modified.tv_sec).\(modified.tv_nsec)-\(info.st_ino)"
    }

    /// Runs the just-compiled lanes program once for its catalog (at most 30 s: lane types'
    /// static properties are lane code). Nil when it fails, says nothing usable, or is stopped.
    static func askCatalog(
        of program: String, root: String, environment: [String: String], stoppingWhen interrupted: @escaping () -> Bool = { false }
    ) -> LaneCatalogFile? {
        let deadline = Date().addingTimeInterval(30)
        guard let result = try? run(
            program, arguments: ["--shiplane-root", root, LaneCatalogFile.argument], environment: environment,
            workingDirectory: root, errorsToo: false, stoppingWhen: { interrupted() || Date() > deadline }
        ), result.status == 0, !result.stopped else { return nil }
        return try? JSONDecoder().decode(LaneCatalogFile.self, from: Data(result.output.utf8))
    }

    /// Runs `swiftc` to its end (or until `interrupted` says to stop it), with its output.
    /// - Throws: `EnvironmentProblem` when it cannot be started.
    static func runCompiler(
        _ swiftc: String, arguments: [String], environment: [String: String], stoppingWhen interrupted: @escaping () -> Bool = { false }
    ) throws -> (status: Int32, output: String) {
        // The compiler's driver leaves a `TemporaryDirectory.*` folder behind in TMPDIR after
        // every compile: it gets a folder of its own, removed when it is done.
        let scratch = makeCompilerScratch(in: environment["TMPDIR"])
        defer { if let scratch { try? FileManager.default.removeItem(atPath: scratch) } }
        var environment = environment
        if let scratch { environment["TMPDIR"] = scratch }
        do {
            let result = try run(swiftc, arguments: arguments, environment: environment, workingDirectory: nil, errorsToo: true, stoppingWhen: interrupted)
            return (result.status, result.output)
        } catch {
            throw EnvironmentProblem("could not start \(swiftc): \(describe(error))", suggestion: "check that swiftc is executable, or set SHIPLANE_SWIFTC")
        }
    }

    /// The static C++ runtime (`libstdc++.a`) the toolchain's `clang` would link, asked of that
    /// `clang` (`-print-file-name`, as GCC's own folder varies with its version); nil when it has
    /// none (the lane program then loads `libstdc++.so`, as Swift programs do by default).
    static func staticCxxRuntime(swiftc: String, environment: [String: String]) -> String? {
        let clang = Toolchain.compilerFolder(of: swiftc) + "/clang"
        guard FileManager.default.isExecutableFile(atPath: clang),
              let asked = try? run(clang, arguments: ["-print-file-name=libstdc++.a"], environment: environment, workingDirectory: nil, errorsToo: false, stoppingWhen: { false }),
              asked.status == 0 else { return nil }
        let path = asked.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard path.hasPrefix("/"), FileManager.default.fileExists(atPath: path) else { return nil }
        let folder = (path as NSString).deletingLastPathComponent
        // `-static-libgcc` needs libgcc_eh.a beside it (the same package as libgcc.a on every
        // distribution that ships libstdc++.a).
        guard FileManager.default.fileExists(atPath: folder + "/libgcc_eh.a") else { return nil }
        return path
    }

    /// A new, empty folder for one compile's temporary files, in `parent` (else `/tmp`); nil when
    /// none can be made (the compiler then uses the usual TMPDIR).
    static func makeCompilerScratch(in parent: String?) -> String? {
        let base = parent.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base.hasSuffix("/") ? base : base + "/").utf8CString.dropLast()) + Array("shiplane-swiftc.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { return nil }
        return String(cString: made)
    }

    /// Runs a program with a clean signal mask in its own process group (`SpawnedProcess`) and
    /// collects its standard output (and error, with `errorsToo`); stops it when `stop` says so.
    private static func run(
        _ program: String, arguments: [String], environment: [String: String], workingDirectory: String?,
        errorsToo: Bool, stoppingWhen stop: () -> Bool
    ) throws -> (status: Int32, output: String, stopped: Bool) {
        let nothing = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard nothing >= 0 else { throw SpawnFailure(path: "/dev/null", reason: String(cString: strerror(errno))) }
        defer { close(nothing) }
        let pipe = try SpawnedProcess.makePipe()
        let process: SpawnedProcess
        do {
            defer { close(pipe.write) }
            process = try SpawnedProcess.spawn(
                path: program, arguments: arguments, environment: environment, workingDirectory: workingDirectory,
                standardInput: nothing, standardOutput: pipe.write, standardError: errorsToo ? pipe.write : nothing
            )
        } catch {
            close(pipe.read)
            throw error
        }
        let output = OutputCollector()
        Thread.detachNewThread {
            var bytes = Data()
            SpawnedProcess.readAll(pipe.read) { bytes.append($0) }
            close(pipe.read)
            output.set(bytes)
        }
        var stopped = false
        let ending = process.wait(stoppingWhen: {
            stopped = stopped || stop()
            return stopped
        })
        let data = output.wait() ?? Data()
        return (ending.bySignal ? 128 + ending.code : ending.code, String(decoding: data, as: UTF8.self), stopped)
    }

    /// The compiler's messages with paths relative to the repository (`Lanes/Release.swift:12:5`).
    static func userFacingDiagnostics(_ output: String, root: String, entry: String) -> [String] {
        var lines: [String] = []
        for raw in output.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = String(raw)
            if line.hasPrefix(entry) {
                line = "(generated lane list)" + line.dropFirst(entry.count)
            }
            line = line.replacingOccurrences(of: root + "/", with: "")
            if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            lines.append(line)
        }
        return lines
    }
}

/// The lanes did not compile; the compiler's messages point at the user's own files.
package struct CompileFailure: ReportableError {
    package var diagnostics: [String]
    package var command: String

    package var message: String {
        let errors = diagnostics.filter { $0.contains(": error:") }
        let first = errors.first ?? diagnostics.first ?? "no compiler output"
        let more = errors.count > 1 ? " (and \(errors.count - 1) more error\(errors.count == 2 ? "" : "s"))" : ""
        return "the lanes do not compile: \(first)\(more)"
    }

    package var info: [(key: String, value: String)] {
        [("compiler output", diagnostics.prefix(60).joined(separator: "\n"))]
    }

    package var suggestion: String? { "fix the lane file at the line shown, then run again" }
    package var category: ErrorCategory { .compile }
}

/// `text` as a Swift string literal for generated code.
func swiftStringLiteral(_ text: String) -> String {
    // Every control character escaped: a key's name read from a lane's literal may hold any.
    var literal = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": literal += "\\\\"
        case "\"": literal += "\\\""
        case "\n": literal += "\\n"
        case _ where scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
            || scalar == "\u{2028}" || scalar == "\u{2029}":
            literal += "\\u{" + String(scalar.value, radix: 16) + "}"
        default: literal.unicodeScalars.append(scalar)
        }
    }
    return literal + "\""
}

/// The bytes a reader thread collected, handed over once it is done.
private final class OutputCollector: @unchecked Sendable {
    // @unchecked: `data` is written once before `done` is signalled and read after waiting for it.
    private var data: Data?
    private let done = DispatchSemaphore(value: 0)

    func set(_ value: Data) {
        data = value
        done.signal()
    }

    /// The bytes, once the reader has them (at most 5 s after the program ended).
    func wait() -> Data? {
        done.wait(timeout: .now() + 5) == .success ? data : nil
    }
}
