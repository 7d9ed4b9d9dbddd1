import Foundation

/// A tag this run pointed at its image's manifest. Written down before the manifest PUT; the undo
/// acts only while the tag still points at the digest this run pushed: it puts back the manifest
/// the tag held before (its digest written down here), or deletes the manifest when the tag is new.
/// A registry that refuses deletes keeps it, and rollback says it stays.
struct ImageTagPushed: Effect, Equatable {
    static let kind = "oci.tag"
    var target: RegistryTarget
    var tag: String
    /// `sha256:` of the manifest this run put at the tag.
    var digest: String
    /// What the tag pointed at before; nil for a new tag.
    var previousDigest: String?

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
        // The distribution API deletes a manifest by digest (which removes the tags on it).
        guard try await client.deleteManifest(digest) else {
            throw EffectStays("\(target.display(tag)) (\(digest)) stays: the registry refuses deletes; remove it in the registry's own interface if it must go")
        }
    }
}
