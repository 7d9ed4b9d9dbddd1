import Foundation
internal import CLibgit2

extension Repository {
    /// Puts the release commit `commit` (HEAD, on a branch) on top of `base` instead of its
    /// parent — `git rebase` of one commit — and moves the branch, the index and the work tree to
    /// the copy: what `commit` changed, applied to `base`, with its author, committer and message.
    ///
    /// The copy's tree is a three-way merge (the parent as the ancestor, `base` and `commit` as
    /// the two sides), so changes `base` made elsewhere (other packages of a monorepo) stay. The
    /// work tree moves by a safe checkout from `commit`'s tree, and the branch by compare-and-swap
    /// from `commit`.
    /// - Parameter sign: given, signs the copy as `commit(...)` signs a commit: it gets the copy's
    ///   text and returns the signature (ASCII armor) stored in its `gpgsig` header. A signature
    ///   names one commit's text, so a signed release commit's copy is signed again, not copied.
    /// - Returns: the copy's id.
    /// - Throws: `GitError` `.conflict` naming the paths both sides changed (nothing moved),
    ///   `.invalid` when HEAD is not a branch at `commit`, `.notFound` when `base` is not here.
    public func replayHeadCommit(_ commit: ObjectID, onto base: ObjectID, sign: ((String) throws -> String)? = nil) throws -> ObjectID {
        lock.lock(); defer { lock.unlock() }
        let operation = "put \(commit.short) on top of \(base.short)"
        guard case .branch(let branch, let current) = try head(), current == commit else {
            throw GitError(code: .invalid, operation: operation, message: "HEAD is not a branch at \(commit.short)")
        }
        var commitID = commit.raw
        var commitObject: OpaquePointer?
        try check(git_commit_lookup(&commitObject, pointer, &commitID), operation)
        defer { git_commit_free(commitObject) }
        var baseID = base.raw
        var baseObject: OpaquePointer?
        try check(git_commit_lookup(&baseObject, pointer, &baseID), operation)
        defer { git_commit_free(baseObject) }
        var parentObject: OpaquePointer?
        if git_commit_parentcount(commitObject) > 0 { try check(git_commit_parent(&parentObject, commitObject, 0), operation) }
        defer { git_commit_free(parentObject) }

        var commitTree: OpaquePointer?, baseTree: OpaquePointer?, parentTree: OpaquePointer?
        try check(git_commit_tree(&commitTree, commitObject), operation)
        defer { git_tree_free(commitTree) }
        try check(git_commit_tree(&baseTree, baseObject), operation)
        defer { git_tree_free(baseTree) }
        if let parentObject { try check(git_commit_tree(&parentTree, parentObject), operation) }
        defer { git_tree_free(parentTree) }

        var merged: OpaquePointer?
        try check(git_merge_trees(&merged, pointer, parentTree, baseTree, commitTree, nil), operation)
        defer { git_index_free(merged) }
        if git_index_has_conflicts(merged) == 1 {
            throw GitError(code: .conflict, operation: operation, message: "both changed " + Self.conflictedPaths(merged).joined(separator: ", "))
        }
        var treeID = git_oid()
        try check(git_index_write_tree_to(&treeID, merged, pointer), operation)
        var tree: OpaquePointer?
        try check(git_tree_lookup(&tree, pointer, &treeID), operation)
        defer { git_tree_free(tree) }

        var copyID = git_oid()
        var parents: [OpaquePointer?] = [baseObject]
        if let sign {
            var buffer = git_buf()
            defer { git_buf_dispose(&buffer) }
            try check(git_commit_create_buffer(
                &buffer, pointer, git_commit_author(commitObject), git_commit_committer(commitObject),
                git_commit_message_encoding(commitObject), git_commit_message(commitObject), tree, 1, &parents), operation)
            let content = buffer.ptr.map { String(cString: $0) } ?? ""
            let signature = try sign(content)
            try check(git_commit_create_with_signature(&copyID, pointer, content, signature, nil), operation)
        } else {
            try check(git_commit_create(
                &copyID, pointer, nil, git_commit_author(commitObject), git_commit_committer(commitObject),
                git_commit_message_encoding(commitObject), git_commit_message(commitObject), tree, 1, &parents), operation)
        }
        let copy = ObjectID(copyID)
        try moveBranch("refs/heads/" + branch, from: commit, fromTree: commitTree, to: copy, toTree: tree, operation)
        return copy
    }

    /// True when `commit` carries a signature (a `gpgsig` header: OpenPGP, SSH or X.509).
    /// - Throws: `GitError` `.notFound` when `commit` is not here.
    public func commitIsSigned(_ commit: ObjectID) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        let operation = "read \(commit.short)'s signature"
        var id = commit.raw
        var object: OpaquePointer?
        try check(git_commit_lookup(&object, pointer, &id), operation)
        defer { git_commit_free(object) }
        var field = git_buf()
        defer { git_buf_dispose(&field) }
        let result = git_commit_header_field(&field, object, "gpgsig")
        if result == GIT_ENOTFOUND.rawValue { return false }
        try check(result, operation)
        return true
    }

    /// Moves HEAD's branch back from `copy` to `commit` (undoing `replayHeadCommit`), with the
    /// index and the work tree.
    /// - Returns: false, changing nothing, when HEAD is no longer a branch at `copy`.
    public func unreplayHeadCommit(_ copy: ObjectID, back commit: ObjectID) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        let operation = "move back from \(copy.short) to \(commit.short)"
        guard case .branch(let branch, let current) = try head(), current == copy else { return false }
        var copyID = copy.raw, commitID = commit.raw
        var copyObject: OpaquePointer?, commitObject: OpaquePointer?
        try check(git_commit_lookup(&copyObject, pointer, &copyID), operation)
        defer { git_commit_free(copyObject) }
        try check(git_commit_lookup(&commitObject, pointer, &commitID), operation)
        defer { git_commit_free(commitObject) }
        var copyTree: OpaquePointer?, commitTree: OpaquePointer?
        try check(git_commit_tree(&copyTree, copyObject), operation)
        defer { git_tree_free(copyTree) }
        try check(git_commit_tree(&commitTree, commitObject), operation)
        defer { git_tree_free(commitTree) }
        try moveBranch("refs/heads/" + branch, from: copy, fromTree: copyTree, to: commit, toTree: commitTree, operation)
        return true
    }

    /// Checks out `toTree` over `fromTree` (safe: a file changed in the work tree since stops it)
    /// and moves `reference` from `from` to `to` by compare-and-swap.
    func moveBranch(
        _ reference: String, from: ObjectID, fromTree: OpaquePointer?, to: ObjectID, toTree: OpaquePointer?, _ operation: String
    ) throws {
        var options = git_checkout_options()
        try check(git_checkout_options_init(&options, UInt32(GIT_CHECKOUT_OPTIONS_VERSION)), operation)
        options.checkout_strategy = GIT_CHECKOUT_SAFE.rawValue
        options.baseline = fromTree
        try markingIndexWrite { try check(git_checkout_tree(pointer, toTree, &options), operation) }
        var fromID = from.raw, toID = to.raw
        var moved: OpaquePointer?
        try check(git_reference_create_matching(&moved, pointer, reference, &toID, 1, &fromID, "shiplane: \(operation)"), operation)
        git_reference_free(moved)
    }

    private static func conflictedPaths(_ index: OpaquePointer?) -> [String] {
        var iterator: OpaquePointer?
        guard git_index_conflict_iterator_new(&iterator, index) == 0 else { return [] }
        defer { git_index_conflict_iterator_free(iterator) }
        var paths: [String] = []
        var ancestor: UnsafePointer<git_index_entry>?, ours: UnsafePointer<git_index_entry>?, theirs: UnsafePointer<git_index_entry>?
        while git_index_conflict_next(&ancestor, &ours, &theirs, iterator) == 0 {
            if let path = (ours ?? theirs ?? ancestor)?.pointee.path { paths.append(String(cString: path)) }
        }
        return paths
    }
}
