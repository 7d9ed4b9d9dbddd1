import Foundation

/// Submodules, nested repositories and linked worktrees inside a work tree are other projects:
/// Shiplane neither reads a version from them nor writes or commits into them, unless
/// `.shiplane.yml` names one as a package (its folder is then the root searched).
///
/// A folder is another project when it holds a `.git` of its own: a folder (a nested clone), or
/// a file (a submodule's or a linked worktree's pointer to its git folder).
package enum OtherProjects {
    /// True when `folder` holds a `.git` folder or file.
    package static func isRepository(_ folder: String, fileSystem: any FileSystem) -> Bool {
        fileSystem.kind(of: folder + "/.git") != nil
    }

    /// The folder strictly below `root` and above `path` that is a repository of its own, or nil
    /// when `path` belongs to the project at `root` (or lies outside it).
    package static func enclosingRepository(of path: String, below root: String, fileSystem: any FileSystem) -> String? {
        let root = LinkGuard.lexical(root)
        let prefix = root == "/" ? "/" : root + "/"
        var folder = (LinkGuard.lexical(path) as NSString).deletingLastPathComponent
        while folder.hasPrefix(prefix) {
            if isRepository(folder, fileSystem: fileSystem) { return folder }
            folder = (folder as NSString).deletingLastPathComponent
        }
        return nil
    }
}
