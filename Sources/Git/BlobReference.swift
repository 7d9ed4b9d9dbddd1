import Foundation
internal import CLibgit2

extension Repository {
    // MARK: - Data kept under a ref

    /// Stores `content` as the file `name` of a commit of its own (no parent) and points
    /// `reference` (`refs/shiplane/run`) at it, replacing what it pointed at. Such a ref is pushed
    /// and fetched like any other (a push only carries commits and tags, so not a bare blob).
    public func writeFileReference(_ reference: String, name: String, content: Data, message: String) throws {
        lock.lock(); defer { lock.unlock() }
        try writeFilesReference(reference, files: [(name: name, content: content)], message: message)
    }

    /// The bytes of the file `name` in the commit `reference` points at, or nil when there is no
    /// such ref or file.
    public func readFileReference(_ reference: String, name: String) throws -> Data? {
        lock.lock(); defer { lock.unlock() }
        let operation = "read \(reference)"
        var found: OpaquePointer?
        let result = git_reference_lookup(&found, pointer, reference)
        if result == GIT_ENOTFOUND.rawValue { return nil }
        try check(result, operation)
        defer { git_reference_free(found) }
        var peeled: OpaquePointer?
        guard git_reference_peel(&peeled, found, GIT_OBJECT_TREE) == 0 else {
            git_error_clear()
            return nil
        }
        defer { git_object_free(peeled) }
        var entry: OpaquePointer?
        guard git_tree_entry_bypath(&entry, peeled, name) == 0 else {
            git_error_clear()
            return nil
        }
        defer { git_tree_entry_free(entry) }
        var blob: OpaquePointer?
        guard let id = git_tree_entry_id(entry), git_blob_lookup(&blob, pointer, id) == 0, let blob else {
            git_error_clear()
            return nil
        }
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        guard size > 0, let bytes = git_blob_rawcontent(blob) else { return Data() }
        return Data(bytes: bytes, count: size)
    }

    /// Deletes a ref; a missing one counts as deleted.
    public func deleteReference(_ reference: String) throws {
        lock.lock(); defer { lock.unlock() }
        var found: OpaquePointer?
        let result = git_reference_lookup(&found, pointer, reference)
        if result == GIT_ENOTFOUND.rawValue { return }
        try check(result, "delete \(reference)")
        defer { git_reference_free(found) }
        try check(git_reference_delete(found), "delete \(reference)")
    }
}
