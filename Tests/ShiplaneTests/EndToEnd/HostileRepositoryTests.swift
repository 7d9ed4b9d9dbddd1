import Foundation
import Shiplane
import Testing

/// Issue 37, item 7: repositories as real teams have them, at their worst — submodules, nested
/// clones, worktrees inside the work tree, symbolic links in every position, locked refs and
/// index, corrupt objects, a read-only and a full file system (small tmpfs mounts), odd encodings,
/// unborn, detached and shallow checkouts. Every command (`version`, `bump --commit --tag`,
/// `changelog --write`, `bump --push`) and a release lane, run by the built `shiplane`, either
/// succeeds correctly or stops with a clear error and leaves the repository byte-identical: the
/// git command is the oracle (`git fsck`, every ref, `git ls-files -s`, `git diff --cached`), and
/// every file of the work tree, of the other projects in it and of the folder outside it is
/// compared byte by byte (links by their target).
@Suite("Hostile repositories: every command succeeds correctly or stops cleanly, the repository byte-identical", .offThePool)
struct HostileRepositoryTests {
    /// A release lane: the bump, its commit, the tag, the push.
    static let releaseLane = """
    import Shiplane
    struct Release: Lane {
        func run(_ lane: LaneContext) async throws {
            let version = try lane.bumpVersion(.patch)
            try lane.commitVersionBump()
            try lane.addGitTag("v\\(version)")
            try await lane.push(tags: ["v\\(version)"])
        }
    }
    """

    enum Command: String, CaseIterable, Sendable {
        case version, bumpCommitTag, changelogWrite, bumpPush, releaseLane

        var arguments: [String] {
            switch self {
            case .version: ["version"]
            case .bumpCommitTag: ["bump", "patch", "--commit", "--tag"]
            case .changelogWrite: ["changelog", "--write", "CHANGELOG.md"]
            case .bumpPush: ["bump", "minor", "--commit", "--tag", "--push"]
            case .releaseLane: ["release"]
            }
        }
    }

    /// One hostile repository: what is done to a release-ready repository (VERSION and
    /// package.json at 1.2.3, tagged, a `feat:` commit since, a release lane, a bare origin).
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// Needs a tmpfs mount (root with CAP_SYS_ADMIN): skipped where mounting is refused.
        var mount: Mount? = nil
        var make: @Sendable (Hostile) throws -> Void

        enum Mount: Sendable { case readOnly, full }
        var testDescription: String { name }
    }

    /// The repository under test, the folder beside it (what links point at) and its origin.
    final class Hostile: @unchecked Sendable {
        let base: TemporaryRepository
        var path: String
        let outside: String
        let origin: String
        var mountPoint: String?

        /// A copy of the release-ready repository, made once (the suite makes about 80 of them;
        /// the cases change them, each from the same history).
        init() throws {
            base = try TemporaryRepository(copying: try TemporaryRepository.template("HostileRepositoryTests") { try Self.releaseReady() })
            path = base.path
            outside = base.root + "/outside"
            origin = base.root + "/origin.git"
        }

        /// VERSION and package.json at 1.2.3, tagged, a `feat:` commit since, a release lane, a
        /// bare origin beside it (`origin.git`) and a folder outside (`outside`).
        private static func releaseReady() throws -> TemporaryRepository {
            let base = try versionedRepository()
            let outside = base.root + "/outside"
            let origin = base.root + "/origin.git"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data("1.2.3\n".utf8).write(to: URL(fileURLWithPath: outside + "/VERSION"))
            try Data("# someone else's notes\n".utf8).write(to: URL(fileURLWithPath: outside + "/victim.md"))
            try base.write("Lanes/Release.swift", HostileRepositoryTests.releaseLane)
            try base.git("add", ".")
            try base.git("commit", "-q", "-m", "chore: lanes")
            try base.git("commit", "-q", "--allow-empty", "-m", "feat: a new thing")
            try runProgram("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", origin], in: base.root, environment: base.environment)
            try base.git("remote", "add", "origin", origin)
            try base.git("push", "-q", "origin", "main", "v1.2.3")
            return base
        }

        deinit {
            if let mountPoint { _ = try? runProgram("/bin/umount", ["-l", mountPoint], in: "/", environment: [:]) }
        }

        var environment: [String: String] { base.environment }

        @discardableResult
        func git(_ arguments: String...) throws -> String {
            let output = try runProgram("/usr/bin/git", arguments, in: path, environment: environment)
            guard output.status == 0 else { throw TestFailure("git \(arguments.joined(separator: " ")) failed: \(output.stderr)") }
            return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func write(_ relative: String, _ bytes: Data) throws {
            let url = URL(fileURLWithPath: path + "/" + relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url)
        }

        /// Overwrites the loose object `id` with bytes that are not a zlib stream.
        func corrupt(object id: String) throws {
            let file = path + "/.git/objects/" + id.prefix(2) + "/" + id.dropFirst(2)
            chmod(file, 0o644)
            try Data("not an object\n".utf8).write(to: URL(fileURLWithPath: file))
        }

        /// Moves the repository onto a small tmpfs (false when mounting is refused).
        func moveOntoMount(sizeKB: Int) throws -> Bool {
            let point = base.root + "/mnt"
            try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
            let mounted = try runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeKB)k", "tmpfs", point], in: "/", environment: [:])
            guard mounted.status == 0 else { return false }
            mountPoint = point
            let copied = try runProgram("/bin/cp", ["-a", path, point + "/repo"], in: "/", environment: [:])
            guard copied.status == 0 else { throw TestFailure("cp: \(copied.stderr)") }
            path = point + "/repo"
            return true
        }
    }

    /// Everything a command must leave as it was when it stops: what git says of the repository
    /// and every file (bytes, mode, link target) of the work tree — other projects in it
    /// included, their `.git` too — and of the folder outside, and of origin's refs.
    struct Snapshot: Equatable {
        var git: [String: String] = [:]
        var files: [String: String] = [:]

        init(_ hostile: Hostile) throws {
            for (name, arguments) in [
                ("fsck", ["fsck", "--strict", "--no-progress", "--no-dangling"]), ("refs", ["for-each-ref", "--format=%(refname) %(objectname)"]),
                ("HEAD", ["rev-parse", "--symbolic-full-name", "HEAD"]), ("head commit", ["rev-parse", "-q", "--verify", "HEAD"]),
                ("index", ["ls-files", "-s"]), ("staged", ["diff", "--cached"]), ("status", ["status", "--porcelain=v1", "-z", "--ignored"]),
            ] {
                let output = try runProgram("/usr/bin/git", arguments, in: hostile.path, environment: hostile.environment)
                git[name] = "\(output.status)\n\(output.stdout)\n\(output.stderr)"
            }
            let originRefs = try runProgram("/usr/bin/git", ["--git-dir", hostile.origin, "for-each-ref"], in: hostile.base.root, environment: hostile.environment)
            git["origin"] = originRefs.stdout
            // Lock files git and Shiplane make while they write (Shiplane's run lock stays by design).
            git["locks"] = Self.files(under: hostile.path + "/.git").keys.filter { $0.hasSuffix(".lock") && $0 != "shiplane/lock" }.sorted()
                .joined(separator: "\n")
            files = Self.files(under: hostile.path, skippingOwnGitFolder: true).merging(Self.files(under: hostile.outside, prefix: "OUTSIDE/")) { $1 }
        }

        /// Path → kind, mode and content digest (a link: its target), recursively, links not followed.
        static func files(under root: String, prefix: String = "", skippingOwnGitFolder: Bool = false) -> [String: String] {
            var result: [String: String] = [:]
            func walk(_ relative: String) {
                let full = relative.isEmpty ? root : root + "/" + relative
                // Through FileManager (lstat, links not followed), not `struct stat`'s fields: with
                // MemberImportVisibility the compiler may attribute those to a C module this file
                // does not import (CDispatch), depending on the compile batch.
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: full) else { return }
                let mode = String(((attributes[.posixPermissions] as? NSNumber)?.intValue ?? 0) & 0o7777, radix: 8)
                switch attributes[.type] as? FileAttributeType {
                case .typeSymbolicLink?:
                    result[prefix + relative] = "link → " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: full)) ?? "?")
                case .typeDirectory?:
                    if !relative.isEmpty { result[prefix + relative] = "folder \(mode)" }
                    for name in ((try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []).sorted() {
                        let child = relative.isEmpty ? name : relative + "/" + name
                        // Its own git folder is compared through git (refs, index, fsck), not byte by byte.
                        if skippingOwnGitFolder && child == ".git" { continue }
                        walk(child)
                    }
                default:
                    let data = FileManager.default.contents(atPath: full) ?? Data()
                    result[prefix + relative] = "file \(mode) \(data.count) \(SHA256.hex(of: data))"
                }
            }
            walk("")
            return result
        }

        /// The keys whose values differ, for the failure message.
        func differences(from other: Snapshot) -> [String] {
            let gitKeys = Set(git.keys).union(other.git.keys).filter { git[$0] != other.git[$0] }.map { "git \($0)" }
            let fileKeys = Set(files.keys).union(other.files.keys).filter { files[$0] != other.files[$0] }
            return (gitKeys + fileKeys).sorted()
        }
    }

    static let cases: [Case] = [
        Case(name: "a submodule with version files of its own") { hostile in
            let library = try TemporaryRepository()
            try library.write("VERSION", "9.9.9\n")
            try library.git("add", ".")
            try library.git("commit", "-q", "-m", "library")
            try hostile.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", library.path, "sub")
            try hostile.git("commit", "-q", "-m", "chore: add the submodule")
            // The submodule's repository lives in .git/modules; the library folder may go.
            _ = library
        },
        Case(name: "a nested clone, untracked") { hostile in
            try runProgram("/usr/bin/git", ["clone", "-q", hostile.origin, hostile.path + "/inner"], in: hostile.path, environment: hostile.environment)
            try hostile.write("inner/VERSION", Data("7.0.0\n".utf8))
        },
        Case(name: "a linked worktree inside the work tree") { hostile in
            try hostile.git("worktree", "add", "-q", "-b", "other", "wt")
            try hostile.write("wt/VERSION", Data("5.0.0\n".utf8))
        },
        Case(name: "VERSION, committed as a link out of the repository") { hostile in
            try FileManager.default.removeItem(atPath: hostile.path + "/VERSION")
            try FileManager.default.createSymbolicLink(atPath: hostile.path + "/VERSION", withDestinationPath: "../outside/VERSION")
            try hostile.git("add", "VERSION")
            try hostile.git("commit", "-q", "-m", "chore: VERSION is shared")
        },
        Case(name: "CHANGELOG.md, an untracked link out of the repository") { hostile in
            try FileManager.default.createSymbolicLink(atPath: hostile.path + "/CHANGELOG.md", withDestinationPath: "../outside/victim.md")
        },
        Case(name: "a folder link out, a dangling link and a link loop") { hostile in
            try FileManager.default.createSymbolicLink(atPath: hostile.path + "/shared", withDestinationPath: "../outside")
            try FileManager.default.createSymbolicLink(atPath: hostile.path + "/ghost", withDestinationPath: "nowhere/at/all")
            try FileManager.default.createSymbolicLink(atPath: hostile.path + "/loop-a", withDestinationPath: "loop-b")
            try FileManager.default.createSymbolicLink(atPath: hostile.path + "/loop-b", withDestinationPath: "loop-a")
            try hostile.git("add", "shared", "ghost", "loop-a", "loop-b")
            try hostile.git("commit", "-q", "-m", "chore: links")
        },
        Case(name: "the branch ref locked by another git") { hostile in
            try hostile.write(".git/refs/heads/main.lock", Data())
        },
        Case(name: "the index locked by another git") { hostile in
            try hostile.write(".git/index.lock", Data())
        },
        Case(name: "HEAD's tree object corrupt") { hostile in
            try hostile.corrupt(object: try hostile.git("rev-parse", "HEAD^{tree}"))
        },
        Case(name: "a corrupt blob the index names") { hostile in
            try hostile.corrupt(object: try hostile.git("rev-parse", ":README.md"))
        },
        Case(name: "odd encodings: a UTF-16 VERSION, a Latin-1 file name and commit message") { hostile in
            var utf16 = Data([0xFF, 0xFE])
            for unit in "1.2.3\n".utf16 { utf16.append(UInt8(unit & 0xFF)); utf16.append(UInt8(unit >> 8)) }
            try hostile.write("VERSION", utf16)
            try Data("x\n".utf8).write(to: URL(fileURLWithPath: hostile.path + "/caf\u{E9}-notes.txt"))
            try hostile.git("add", ".")
            try hostile.git("-c", "i18n.commitEncoding=ISO-8859-1", "commit", "-q", "-m", "feat: caf\u{E9}")
        },
        Case(name: "a BOM and CRLF line ends in VERSION") { hostile in
            try hostile.write("VERSION", Data("\u{FEFF}1.2.3\r\n".utf8))
            try hostile.git("commit", "-q", "-am", "chore: written on Windows")
        },
        Case(name: "a detached HEAD") { hostile in
            try hostile.git("checkout", "-q", "--detach")
        },
        Case(name: "a shallow clone") { hostile in
            let shallow = hostile.base.root + "/shallow"
            try runProgram("/usr/bin/git", ["clone", "-q", "--depth", "1", "file://" + hostile.origin, shallow], in: hostile.base.root, environment: hostile.environment)
            hostile.path = shallow
        },
        Case(name: "the repository on a read-only file system", mount: .readOnly) { hostile in
            guard try hostile.moveOntoMount(sizeKB: 4096), let point = hostile.mountPoint else { return }
            let remounted = try runProgram("/bin/mount", ["-o", "remount,ro", point], in: "/", environment: [:])
            if remounted.status != 0 { throw TestFailure("remount: \(remounted.stderr)") }
        },
        Case(name: "the repository on a full file system", mount: .full) { hostile in
            guard try hostile.moveOntoMount(sizeKB: 4096), let point = hostile.mountPoint else { return }
            // Filled to the last block: every new file or object fails with ENOSPC.
            _ = try runProgram("/bin/dd", ["if=/dev/zero", "of=\(point)/filler", "bs=4096"], in: "/", environment: [:])
            _ = try runProgram("/bin/dd", ["if=/dev/zero", "of=\(point)/filler2", "bs=1"], in: "/", environment: [:])
        },
    ]

    static let canMount: Bool = {
        guard getuid() == 0, let probe = try? TemporaryRepository(commit: false) else { return false }
        let point = probe.root + "/probe"
        try? FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        guard (try? runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", point], in: "/", environment: [:]))?.status == 0 else { return false }
        _ = try? runProgram("/bin/umount", [point], in: "/", environment: [:])
        return true
    }()

    /// Foreign error types and crash words that must never reach a user.
    static let unclear = ["NSCocoaErrorDomain", "DecodingError", "CancellationError", "Fatal error", "fatalError", "Swift/", "GitError(", "POSIXError"]

    @Test(arguments: cases)
    func everyCommandSucceedsOrLeavesTheRepositoryAsItWas(_ hostileCase: Case) throws {
        if hostileCase.mount != nil && !Self.canMount {
            // No tmpfs here (not root, or no CAP_SYS_ADMIN): the case cannot be made.
            return
        }
        var lines: [String] = []
        for command in Command.allCases {
            let hostile = try Hostile()
            try hostileCase.make(hostile)
            let before = try Snapshot(hostile)
            let outsideBefore = Snapshot.files(under: hostile.outside)
            let run = try runProgram(shiplaneBinary, command.arguments, in: hostile.path, environment: hostile.environment, timeout: 240)
            let after = try Snapshot(hostile)
            let context = "\(hostileCase.name), `shiplane \(command.arguments.joined(separator: " "))`"
            #expect(Snapshot.files(under: hostile.outside) == outsideBefore, "\(context): the folder outside is untouched")
            #expect(![70, 134, 139].contains(run.status) && run.status < 128, "\(context): no crash, no defect: \(run.all)")
            for word in Self.unclear { #expect(!run.all.contains(word), "\(context): '\(word)' in \(run.all)") }
            if run.status == 0 {
                lines.append("\(command.rawValue): succeeded")
                try expectCorrect(command, hostile: hostile, before: before, after: after, context: context, output: run.all)
            } else {
                lines.append("\(command.rawValue): refused (exit \(run.status))")
                #expect(run.stderr.contains("error:"), "\(context): a clear error: \(run.all)")
                #expect(after == before, "\(context): exit \(run.status) but changed \(after.differences(from: before)): \(run.all)")
                #expect(!FileManager.default.fileExists(atPath: hostile.path + "/.git/shiplane/run.json"), "\(context): no run left behind")
            }
        }
        print("HOSTILE \(hostileCase.name): " + lines.joined(separator: "; "))
    }

    /// A VERSION written on Windows (a UTF-8 byte-order mark, CRLF) is read, and bumped keeping both.
    @Test func aVersionFileWithAByteOrderMarkIsBumpedKeepingIt() throws {
        let hostile = try Hostile()
        try hostile.write("VERSION", Data("\u{FEFF}1.2.3\r\n".utf8))
        try hostile.git("commit", "-q", "-am", "chore: written on Windows")
        let version = try runProgram(shiplaneBinary, ["version"], in: hostile.path, environment: hostile.environment)
        #expect(version.status == 0 && version.stdout.hasPrefix("1.2.3\n"), "\(version.all)")
        let bump = try runProgram(shiplaneBinary, ["bump", "patch", "--commit", "--tag"], in: hostile.path, environment: hostile.environment)
        #expect(bump.status == 0, "\(bump.all)")
        #expect(FileManager.default.contents(atPath: hostile.path + "/VERSION") == Data("\u{FEFF}1.2.4\r\n".utf8))
        #expect(try hostile.git("tag", "--points-at", "HEAD") == "v1.2.4")
        #expect(try hostile.git("status", "--porcelain").isEmpty)
    }

    /// What success must mean for each command.
    private func expectCorrect(_ command: Command, hostile: Hostile, before: Snapshot, after: Snapshot, context: String, output: String) throws {
        // Other projects inside the work tree are never touched, nor is their git folder.
        for path in before.files.keys where ["sub/", "inner/", "wt/"].contains(where: path.hasPrefix) {
            #expect(after.files[path] == before.files[path], "\(context): \(path) changed")
        }
        #expect(after.git["fsck"] == before.git["fsck"], "\(context): git fsck changed: \(after.git["fsck"] ?? "")")
        #expect(after.git["locks"] == before.git["locks"], "\(context): lock files left: \(after.git["locks"] ?? "")")
        switch command {
        case .version:
            #expect(after == before, "\(context): version changed \(after.differences(from: before))")
        case .changelogWrite:
            let changed = after.differences(from: before).filter { !$0.hasPrefix("git status") }
            #expect(changed == ["CHANGELOG.md"], "\(context): only CHANGELOG.md is written: \(changed)")
        case .bumpCommitTag, .bumpPush, .releaseLane:
            let head = try hostile.git("rev-parse", "HEAD")
            let parent = before.git["head commit"]?.split(separator: "\n").dropFirst().first.map(String.init)
            #expect((try? hostile.git("rev-parse", "HEAD^")) == parent, "\(context): one commit on top")
            let tags = try hostile.git("tag", "--points-at", "HEAD")
            #expect(!tags.isEmpty, "\(context): the release is tagged")
            #expect(after.git["status"] == before.git["status"], "\(context): everything the bump wrote is committed")
            if command != .bumpCommitTag {
                let originHas = try runProgram("/usr/bin/git", ["--git-dir", hostile.origin, "rev-parse", "refs/heads/main"], in: hostile.base.root, environment: hostile.environment)
                #expect(originHas.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == head || hostile.path.hasSuffix("/shallow"),
                        "\(context): origin has the release")
            }
            #expect(!FileManager.default.fileExists(atPath: hostile.path + "/.git/shiplane/run.json"), "\(context): a finished run leaves no record: \(output)")
        }
    }
}

