import Foundation

/// A release this run published to a Swift package registry. Written down before the PUT (the
/// run passes its point of no return right before it), done once the registry answered. A
/// registry keeps a release as it was published (Registry.md 4.6: its resources "MUST NOT
/// change") and the specification has no call to remove one, so it stays: a re-run finds it
/// there with the same checksum and sends nothing.
struct SwiftPackageReleasePublished: Effect, Equatable {
    static let kind = "swiftRegistry.release"
    var package: SwiftRegistryPackage
    var version: String
    /// Hex SHA-256 of the source archive sent.
    var checksum: String

    var reach: EffectReach { .permanent }

    func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        throw EffectStays("\(package.id) \(version) stays in \(package.registry): a registry keeps a published release as it is and offers no call to remove it; ask its operators to withdraw it if it must go")
    }
}
