import Foundation
internal import Git

/// Keeps files Shiplane writes for the user (`--report-json`, `--junit`) from overwriting the
/// repository itself: its git folder, or a file git tracks.
package enum RepositoryFileGuard {
    /// Why writing `path` (absolute; links are followed, as the write would) would damage the
    /// repository, in words that follow the path ("is a file git tracks (VERSION)"); nil when
    /// nothing would be damaged, or no repository encloses it.
    package static func damage(writing path: String) -> String? {
        let lexical = LinkGuard.lexical(path)
        if lexical.split(separator: "/").contains(".git") {
            return "is inside .git, the repository's own folder"
        }
        let folder = (lexical as NSString).deletingLastPathComponent
        guard let realFolder = LinkGuard.realPath(folder) else { return nil }
        let target = LinkGuard.realPath(lexical) ?? realFolder + "/" + (lexical as NSString).lastPathComponent
        return try? git {
            guard let repository = try? Repository.discover(from: realFolder) else { return nil }
            var gitFolders = [repository.gitDirectory]
            if let workTree = repository.workingDirectory, let common = try? GitSettings.commonGitDirectory(workTree: workTree) {
                gitFolders.append(common)
            }
            for gitFolder in gitFolders.compactMap(LinkGuard.realPath) where target.hasPrefix(gitFolder + "/") {
                return "is inside the repository's git folder \(gitFolder)"
            }
            guard let workTree = repository.workingDirectory.flatMap(LinkGuard.realPath), target.hasPrefix(workTree + "/") else {
                return nil
            }
            let relative = String(target.dropFirst(workTree.count + 1))
            return try repository.isTracked(relative) ? "is a file git tracks (\(relative)): it would be overwritten" : nil
        }
    }
}
