import Foundation
internal import Git

/// The one check of every path Shiplane writes: a step's file (`step.writeFile`, so version
/// files, the changelog, archives, checksums and copies) and the reports (`--report-json`,
/// `--junit`). A write never follows a symbolic link out of the repository (or, for a report
/// outside it, out of the folder chosen), never lands inside `.git`, and never replaces something
/// that is not a plain file (a device such as `/dev/full`, a socket, a pipe, a folder). A report
/// also never overwrites a file git tracks.
package enum RepositoryFileGuard {
    /// What a file is written for.
    package enum Purpose: Sendable {
        /// A step's file: tracked files (version files, the changelog) are what steps edit.
        case stepFile
        /// A report the user asked for: never a file of the repository.
        case report
    }

    /// Why a path must not be written.
    package enum Problem: Equatable, Sendable {
        /// A symbolic link (the file or a folder above it) leads to `destination`, outside.
        case linkLeaves(destination: String)
        /// The path lies inside a git folder.
        case insideGitFolder(String)
        /// Something other than a plain file is there.
        case notAFile(String)
        /// A report would overwrite a file git tracks.
        case tracked(String)

        /// The problem in words that follow the path ("is inside .git, the repository's own folder").
        package var text: String {
            switch self {
            case .linkLeaves(let destination): "is a symbolic link to \(destination), outside the repository"
            case .insideGitFolder(let folder): "is inside \(folder), the repository's own git folder"
            case .notAFile(let kind): "is \(kind), not a file"
            case .tracked(let relative): "is a file git tracks (\(relative)): it would be overwritten"
            }
        }
    }

    /// Why writing `path` (absolute) for `purpose` must not happen; nil when it may. `workTree`
    /// is the repository's root when the caller knows it (a step); a report finds its repository
    /// from the path.
    package static func problem(writing path: String, workTree: String? = nil, purpose: Purpose) -> Problem? {
        let lexical = LinkGuard.lexical(path)
        if lexical.split(separator: "/").contains(".git") { return .insideGitFolder(".git") }
        let folder = (lexical as NSString).deletingLastPathComponent
        let repository = purpose == .report ? discoveredRepository(from: folder) : nil
        let root = workTree.map(LinkGuard.lexical) ?? repository?.workTree
        // Inside the repository as written, a link must not lead out of it; a report written
        // elsewhere must not be led out of the folder chosen for it.
        let inside = root.map { lexical.hasPrefix($0 == "/" ? "/" : $0 + "/") } ?? false
        if let destination = LinkGuard.destinationOutside(inside ? (root ?? folder) : folder, of: lexical) {
            return .linkLeaves(destination: destination)
        }
        if let kind = nonFileKind(lexical) { return .notAFile(kind) }
        guard let realFolder = LinkGuard.realPath(folder) else { return nil }
        let target = LinkGuard.realPath(lexical) ?? realFolder + "/" + (lexical as NSString).lastPathComponent
        var gitFolders = repository?.gitFolders ?? []
        if let workTree { gitFolders.append(workTree + "/.git") }
        for gitFolder in gitFolders.compactMap(LinkGuard.realPath) where target.hasPrefix(gitFolder + "/") {
            return .insideGitFolder(gitFolder)
        }
        guard purpose == .report, let repository, let realRoot = LinkGuard.realPath(repository.workTree),
              target.hasPrefix(realRoot + "/") else { return nil }
        let relative = String(target.dropFirst(realRoot.count + 1))
        return (try? git { try repository.handle.isTracked(relative) }) == true ? .tracked(relative) : nil
    }

    /// Why writing `path` would damage the repository, in words that follow the path; nil when
    /// it would not (a report's check).
    package static func damage(writing path: String) -> String? {
        problem(writing: path, purpose: .report)?.text
    }

    /// True when both paths lead to the same file (links followed; a file not made yet by its folder).
    package static func sameFile(_ first: String, _ second: String) -> Bool {
        resolved(first) == resolved(second)
    }

    private static func resolved(_ path: String) -> String {
        var lexical = LinkGuard.lexical(path)
        for _ in 0..<40 {
            if let real = LinkGuard.realPath(lexical) { return real }
            // A link to a file not made yet leads where it points (40 hops, as the kernel allows).
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: lexical) else { break }
            lexical = LinkGuard.lexical(target.hasPrefix("/") ? target : (lexical as NSString).deletingLastPathComponent + "/" + target)
        }
        let folder = (lexical as NSString).deletingLastPathComponent
        return (LinkGuard.realPath(folder) ?? folder) + "/" + (lexical as NSString).lastPathComponent
    }

    /// What is at `path` (links followed) when it exists and is not a plain file.
    private static func nonFileKind(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFIFO: return "a pipe"
        case S_IFSOCK: return "a socket"
        default: return "something other than a file"
        }
    }

    private struct FoundRepository {
        let handle: Repository
        let workTree: String
        let gitFolders: [String]
    }

    private static func discoveredRepository(from folder: String) -> FoundRepository? {
        guard let realFolder = LinkGuard.realPath(folder) else { return nil }
        return try? git {
            guard let repository = try? Repository.discover(from: realFolder), let workTree = repository.workingDirectory else { return nil }
            var gitFolders = [repository.gitDirectory]
            if let common = try? GitSettings.commonGitDirectory(workTree: workTree) { gitFolders.append(common) }
            let trimmed = workTree.hasSuffix("/") && workTree.count > 1 ? String(workTree.dropLast()) : workTree
            return FoundRepository(handle: repository, workTree: trimmed, gitFolders: gitFolders.map {
                $0.hasSuffix("/") && $0.count > 1 ? String($0.dropLast()) : $0
            })
        }
    }
}
