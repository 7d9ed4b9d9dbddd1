import Foundation
internal import CLibgit2

/// A tag: a name under `refs/tags/` for a commit, lightweight or annotated.
public struct Tag: Equatable, Sendable {
    /// The name without `refs/tags/` (`v1.2.0`).
    public var name: String
    /// The commit the tag names, with any tag objects peeled away.
    public var target: ObjectID
    /// What the reference points at: the tag object for an annotated tag, the commit otherwise.
    public var object: ObjectID
    public var isAnnotated: Bool
    /// The annotated tag's message as stored (git ends it with a newline); nil for a lightweight tag.
    public var message: String?
    /// Who made the annotated tag, when the tag object says; nil for a lightweight tag.
    public var tagger: Signature?

    public init(name: String, target: ObjectID, object: ObjectID, isAnnotated: Bool, message: String? = nil, tagger: Signature? = nil) {
        self.name = name
        self.target = target
        self.object = object
        self.isAnnotated = isAnnotated
        self.message = message
        self.tagger = tagger
    }
}

extension Repository {
    // MARK: - Reading

    /// Every tag that names a commit, sorted by name (bytewise, as `git tag` lists them).
    ///
    /// Tags of trees or blobs are left out: nothing Shiplane does with tags applies to them.
    public func tags() throws -> [Tag] {
        lock.lock(); defer { lock.unlock() }
        var iterator: OpaquePointer?
        try check(git_reference_iterator_glob_new(&iterator, pointer, "refs/tags/*"), "list tags")
        defer { git_reference_iterator_free(iterator) }
        // The references as the iterator reads them (no second lookup by name), and what each
        // object a lightweight tag names peels to, read once: a monorepo's release batch tags
        // thousands of packages at one commit.
        var tags: [Tag] = []
        var peeled: [ObjectID: ObjectID?] = [:]
        while true {
            var reference: OpaquePointer?
            let result = git_reference_next(&reference, iterator)
            if result == GIT_ITEROVER.rawValue { break }
            try check(result, "list tags")
            defer { git_reference_free(reference) }
            guard let reference, let name = git_reference_name(reference) else { continue }
            if let direct = ObjectID(git_reference_target(reference)), let known = peeled[direct] {
                if let known { tags.append(Tag(name: String(String(cString: name).dropFirst("refs/tags/".count)), target: known, object: direct, isAnnotated: false)) }
                continue
            }
            let tag = try tag(reference: reference, name: String(cString: name))
            if let direct = ObjectID(git_reference_target(reference)), tag?.isAnnotated != true { peeled[direct] = tag?.target }
            if let tag { tags.append(tag) }
        }
        tags.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        return tags
    }

    /// The tag called `name` (without `refs/tags/`), or nil when there is none or it names no commit.
    public func tag(named name: String) throws -> Tag? {
        lock.lock(); defer { lock.unlock() }
        return try tag(reference: "refs/tags/" + name)
    }

    private func tag(reference name: String) throws -> Tag? {
        var reference: OpaquePointer?
        let found = git_reference_lookup(&reference, pointer, name)
        if found == GIT_ENOTFOUND.rawValue || found == GIT_EINVALIDSPEC.rawValue { return nil }
        try check(found, "read tag \(name)")
        defer { git_reference_free(reference) }
        return try tag(reference: reference, name: name)
    }

    /// The tag `reference` (named `name`, with `refs/tags/`) makes, nil when it names no commit.
    private func tag(reference: OpaquePointer?, name: String) throws -> Tag? {
        let operation = "read tag \(name)"
        var object: OpaquePointer?
        try check(git_reference_peel(&object, reference, GIT_OBJECT_ANY), operation)
        defer { git_object_free(object) }
        // git_reference_peel with ANY peels tags away; the reference's own target is what it names.
        guard let direct = ObjectID(git_reference_target(reference)), let target = ObjectID(git_object_id(object)),
              git_object_type(object) == GIT_OBJECT_COMMIT
        else { return nil }

        let shortName = String(name.dropFirst("refs/tags/".count))
        guard direct != target else {
            return Tag(name: shortName, target: target, object: direct, isAnnotated: false)
        }
        var tagObject: OpaquePointer?
        var directID = direct.raw
        try check(git_tag_lookup(&tagObject, pointer, &directID), operation)
        defer { git_tag_free(tagObject) }
        return Tag(
            name: shortName, target: target, object: direct, isAnnotated: true,
            message: git_tag_message(tagObject).map { String(cString: $0) },
            tagger: git_tag_tagger(tagObject).map { Signature($0) })
    }

    // MARK: - Writing

    /// Creates a tag of `target`: annotated when `message` is given, lightweight otherwise.
    ///
    /// An annotated tag needs a `tagger`; its message gets git's whitespace clean-up.
    /// - Parameter sign: given, signs the annotated tag: it gets the tag object's text and returns
    ///   the signature (ASCII armor), which follows the message in the object, as `git tag -s`
    ///   writes it.
    /// - Throws: `GitError` `.invalid` for a name git refuses (`v1..2`, `a b`, `-x`), `.exists` when
    ///   the tag exists and `force` is false, `.notFound` for an unknown target.
    @discardableResult
    public func createTag(
        name: String, target: ObjectID, message: String? = nil, tagger: Signature? = nil, force: Bool = false,
        sign: ((String) throws -> String)? = nil
    ) throws -> Tag {
        lock.lock(); defer { lock.unlock() }
        let operation = "create tag \(name)"
        var valid: Int32 = 0
        try check(git_tag_name_is_valid(&valid, name), operation)
        var referenceValid: Int32 = 0
        try check(git_reference_name_is_valid(&referenceValid, "refs/tags/" + name), operation)
        guard valid == 1, referenceValid == 1 else {
            throw GitError(code: .invalid, operation: operation, message: "'\(name)' is not a valid tag name")
        }
        var targetID = target.raw
        var object: OpaquePointer?
        try check(git_object_lookup(&object, pointer, &targetID, GIT_OBJECT_ANY), operation)
        defer { git_object_free(object) }

        var created = git_oid()
        let result: Int32
        if let message {
            guard let tagger else {
                throw GitError(code: .invalid, operation: operation, message: "an annotated tag needs a tagger")
            }
            let cleanMessage = try prettifiedMessage(message, operation)
            if let sign {
                result = try tagger.withLibgit2Signature(operation) { signature in
                    try createSignedTag(
                        &created, name: name, object: object, tagger: signature, message: cleanMessage, force: force,
                        sign: sign, operation)
                }
            } else {
                result = try tagger.withLibgit2Signature(operation) { signature in
                    git_tag_create(&created, pointer, name, object, signature, cleanMessage, force ? 1 : 0)
                }
            }
        } else if sign != nil {
            throw GitError(code: .invalid, operation: operation, message: "a lightweight tag cannot be signed: only an annotated tag has a message to hold the signature")
        } else {
            result = git_tag_create_lightweight(&created, pointer, name, object, force ? 1 : 0)
        }
        if result == GIT_EEXISTS.rawValue {
            throw GitError(code: .exists, operation: operation, message: "tag \(name) already exists")
        }
        try check(result, operation)
        guard let tag = try tag(named: name) else {
            throw GitError(code: .invalid, operation: operation, message: "\(target.short) is not a commit")
        }
        return tag
    }

    /// Writes a signed annotated tag object (the tag's text, then the signature of that text) and
    /// points `refs/tags/NAME` at it; returns libgit2's code for the reference's creation.
    private func createSignedTag(
        _ created: inout git_oid, name: String, object: OpaquePointer?, tagger: UnsafePointer<git_signature>,
        message: String, force: Bool, sign: (String) throws -> String, _ operation: String
    ) throws -> Int32 {
        guard let targetID = ObjectID(git_object_id(object)), let typeName = git_object_type2string(git_object_type(object)) else {
            throw GitError(code: .invalid, operation: operation, message: "the tag's target cannot be read")
        }
        let raw = tagger.pointee
        let seconds = raw.when.offset
        let offset = (seconds < 0 ? "-" : "+") + String(format: "%02d%02d", abs(seconds) / 60, abs(seconds) % 60)
        let taggerLine = "\(raw.name.map { String(cString: $0) } ?? "") <\(raw.email.map { String(cString: $0) } ?? "")> \(raw.when.time) \(offset)"
        let text = "object \(targetID.hex)\ntype \(String(cString: typeName))\ntag \(name)\ntagger \(taggerLine)\n\n\(message)"
        let signature = try sign(text)
        let whole = Array((text + signature).utf8)
        if !force, try tag(named: name) != nil || referenceExists("refs/tags/" + name) { return GIT_EEXISTS.rawValue }
        var odb: OpaquePointer?
        try check(git_repository_odb(&odb, pointer), operation)
        defer { git_odb_free(odb) }
        try check(whole.withUnsafeBytes { git_odb_write(&created, odb, $0.baseAddress, $0.count, GIT_OBJECT_TAG) }, operation)
        var reference: OpaquePointer?
        let result = git_reference_create(&reference, pointer, "refs/tags/" + name, &created, force ? 1 : 0, nil)
        git_reference_free(reference)
        return result
    }

    /// True when a reference of that full name exists (whatever it points at).
    private func referenceExists(_ name: String) -> Bool {
        var reference: OpaquePointer?
        defer { git_reference_free(reference) }
        return git_reference_lookup(&reference, pointer, name) == 0
    }

    /// Deletes the tag `name`, only if it still points where the caller expects.
    ///
    /// `ifPointsAt` matches either the tag's own object (`Tag.object`) or the commit it names
    /// (`Tag.target`); nil deletes whatever the tag points at. The check and the deletion are one
    /// compare-and-swap in libgit2, so a tag moved meanwhile is never deleted.
    /// - Returns: true when the tag was deleted; false when it did not exist or had moved.
    @discardableResult
    public func deleteTag(name: String, ifPointsAt expected: ObjectID? = nil) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        let operation = "delete tag \(name)"
        var reference: OpaquePointer?
        let found = git_reference_lookup(&reference, pointer, "refs/tags/" + name)
        if found == GIT_ENOTFOUND.rawValue || found == GIT_EINVALIDSPEC.rawValue { return false }
        try check(found, operation)
        defer { git_reference_free(reference) }
        if let expected {
            var peeled: OpaquePointer?
            try check(git_reference_peel(&peeled, reference, GIT_OBJECT_ANY), operation)
            defer { git_object_free(peeled) }
            let direct = ObjectID(git_reference_target(reference))
            guard expected == direct || expected == ObjectID(git_object_id(peeled)) else { return false }
        }
        let result = git_reference_delete(reference)
        if result == GIT_EMODIFIED.rawValue { return false }
        try check(result, operation)
        return true
    }

    /// Points the tag `name` at `object` again (a tag object, or a commit for a lightweight tag),
    /// only if it still points at `expected`: one compare-and-swap in libgit2, so a tag moved
    /// meanwhile is left alone. Used to put back a tag a run moved with `force`.
    /// - Returns: true when the tag now points at `object`; false when it did not point at `expected`.
    @discardableResult
    public func restoreTag(name: String, to object: ObjectID, ifPointsAt expected: ObjectID) throws -> Bool {
        lock.lock(); defer { lock.unlock() }
        let operation = "restore tag \(name)"
        var id = object.raw
        var current = expected.raw
        var reference: OpaquePointer?
        let result = git_reference_create_matching(&reference, pointer, "refs/tags/" + name, &id, 1, &current, "shiplane: restore tag")
        if result == GIT_EMODIFIED.rawValue || result == GIT_ENOTFOUND.rawValue { return false }
        try check(result, operation)
        git_reference_free(reference)
        return true
    }
}
