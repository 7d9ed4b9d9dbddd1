import Foundation
internal import CLibgit2

extension Repository {
    /// The names of the references `glob` matches (`refs/shiplane/packages/*/run`), sorted.
    public func referenceNames(matching glob: String) throws -> [String] {
        lock.lock(); defer { lock.unlock() }
        var iterator: OpaquePointer?
        try check(git_reference_iterator_glob_new(&iterator, pointer, glob), "list \(glob)")
        defer { git_reference_iterator_free(iterator) }
        var names: [String] = []
        while true {
            var name: UnsafePointer<CChar>?
            let result = git_reference_next_name(&name, iterator)
            if result == GIT_ITEROVER.rawValue { break }
            try check(result, "list \(glob)")
            if let name { names.append(String(cString: name)) }
        }
        return names.sorted()
    }
}
