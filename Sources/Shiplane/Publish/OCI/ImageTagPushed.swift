import Foundation

/// A tag this run pointed at its image's manifest (or index), or a platform's manifest of an index
/// put by its digest. Written down before the manifest PUT; the undo acts only while the tag still
/// points at the digest this run pushed: it puts back the manifest the tag held before (its digest
/// written down here), or deletes the manifest when the tag is new — unless a tag this run did not
/// put points at it too (the distribution API deletes by digest, which takes every tag on it), or,
/// for a platform's manifest, the index that lists it is still in the registry. A registry that
/// refuses deletes keeps it, and rollback says it stays.
struct ImageTagPushed: Effect, Equatable {
    static let kind = "oci.tag"
    var target: RegistryTarget
    var tag: String
    /// `sha256:` of the manifest this run put at the tag.
    var digest: String
    /// What the tag pointed at before; nil for a new tag.
    var previousDigest: String?
    /// Every tag this run put new at `digest` (deleting the digest takes them all); nil in records
    /// written before it was kept: this tag alone.
    var newTags: [String]? = nil
    /// For a platform's manifest: the index that lists it; it stays while that index is there.
    var index: String? = nil

    var reach: EffectReach { .publication }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let credentials = RegistryCredentials.from(context.environment.variables)
        let client = try await RegistryClient.connect(target: target, credentials: credentials,
                                                      transport: context.transport(secrets: credentials.secrets))
        guard let current = try await client.manifestDigest(tag) else { return }
        guard current == digest else {
            if current == previousDigest { return }
            throw ShiplaneError("\(target.display(tag)) points at \(current) now, not at \(digest) this run pushed; left as it is")
        }
        if let previousDigest {
            guard let earlier = try await client.manifest(previousDigest) else {
                throw ShiplaneError("\(target.display(tag)) stays at \(digest): the manifest it held before (\(previousDigest)) is gone from the registry")
            }
            try await client.putManifest(earlier.bytes, mediaType: earlier.mediaType, tag: tag)
            return
        }
        let name = tag == digest ? "\(target.host)/\(target.repository)@\(digest)" : target.display(tag)
        if let index, try await client.manifestDigest(index) != nil {
            throw EffectStays("\(name) stays: the image index \(index) that lists it is still in the registry")
        }
        // The distribution API deletes a manifest by digest, which removes every tag on it: not
        // while a tag this run did not put new there points at it.
        let ours = Set((newTags ?? []) + [tag])
        var others: [String] = []
        for other in try await client.tags() where !ours.contains(other) {
            if try await client.manifestDigest(other) == digest { others.append(other) }
        }
        guard others.isEmpty else {
            throw EffectStays("\(name) (\(digest)) stays: \(others.map(target.display).joined(separator: ", ")) \(others.count == 1 ? "points" : "point") at it too, and deleting it would take \(others.count == 1 ? "that tag" : "those tags")")
        }
        guard try await client.deleteManifest(digest) else {
            throw EffectStays("\(name) (\(digest)) stays: the registry refuses deletes; remove it in the registry's own interface if it must go")
        }
    }
}
