import Foundation
internal import Git

/// Finds the lock files a project commits: every file in the work tree that a known format reads
/// and that git tracks (an ignored or untracked lock file is not part of the commit, so two
/// checkouts of one commit read the same files). Folders of installed packages and build
/// outputs (`node_modules`, `Pods`, `vendor`, `build`, `target`, hidden folders) and nested
/// repositories are not searched.
enum LockFileDiscovery {
    private static let skippedFolders: Set<String> = ["node_modules", "Pods", "vendor", "build", "target", "Carthage", "DerivedData", "dist"]

    /// Paths relative to `root`, sorted.
    static func find(root: String, fileSystem: any FileSystem, isTracked: (String) throws -> Bool) throws -> [String] {
        var found: [String] = []
        func walk(_ relative: String, depth: Int) throws {
            guard depth < 12 else { return }
            let folder = relative.isEmpty ? root : root + "/" + relative
            for name in try fileSystem.list(folder) {
                let path = relative.isEmpty ? name : relative + "/" + name
                switch fileSystem.kind(of: root + "/" + path) {
                case .folder?:
                    guard !name.hasPrefix("."), !skippedFolders.contains(name), fileSystem.kind(of: root + "/" + path + "/.git") == nil else { continue }
                    try walk(path, depth: depth + 1)
                case .file?:
                    if LockFileFormats.reader(for: path) != nil, try isTracked(path) { found.append(path) }
                default:
                    continue
                }
            }
        }
        try walk("", depth: 0)
        return found.sorted()
    }
}
