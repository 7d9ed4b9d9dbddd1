import Foundation
internal import CLibgit2

extension Repository {
    /// Stores `files` (top-level names, each once) as a commit of its own (no parent) and points
    /// `reference` at it, replacing what it pointed at; returns the commit. What a release's part
    /// records on origin: its description and the bytes of each artifact it built.
    @discardableResult
    public func writeFilesReference(_ reference: String, files: [(name: String, content: Data)], message: String) throws -> ObjectID {
        lock.lock(); defer { lock.unlock() }
        let operation = "write \(reference)"
        var builder: OpaquePointer?
        try check(git_treebuilder_new(&builder, pointer, nil), operation)
        defer { git_treebuilder_free(builder) }
        for file in files {
            var blob = git_oid()
            try file.content.withUnsafeBytes { raw in
                try check(git_blob_create_from_buffer(&blob, pointer, raw.baseAddress, raw.count), operation)
            }
            try check(git_treebuilder_insert(nil, builder, file.name, &blob, GIT_FILEMODE_BLOB), operation)
        }
        var treeID = git_oid()
        try check(git_treebuilder_write(&treeID, builder), operation)
        var tree: OpaquePointer?
        try check(git_tree_lookup(&tree, pointer, &treeID), operation)
        defer { git_tree_free(tree) }
        var signature: UnsafeMutablePointer<git_signature>?
        try check(git_signature_now(&signature, "Shiplane", "shiplane@localhost"), operation)
        defer { git_signature_free(signature) }
        var commit = git_oid()
        try check(git_commit_create(&commit, pointer, nil, signature, signature, nil, message, tree, 0, nil), operation)
        var created: OpaquePointer?
        try check(git_reference_create(&created, pointer, reference, &commit, 1, message), operation)
        git_reference_free(created)
        return ObjectID(commit)
    }
}
