import Foundation

/// Files put on a server that owns them (the `upload` action): they stay.
package struct FilesUploaded: Effect, Equatable {
    /// The record's name for it.
    package static let kind = "release.upload"
    /// Where they went, as people can read it (secrets redacted).
    package var destination: String

    /// Describes files uploaded to `destination`.
    package init(destination: String) { self.destination = destination }

    /// The server owns them.
    package var reach: EffectReach { .permanent }

    /// Files on someone else's server are not deleted.
    /// - Throws: `EffectStays`, always.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        if status == .done { throw EffectStays("files uploaded to \(destination) stay: the server owns them (remove them there if needed)") }
        throw EffectStays("files may have been uploaded to \(destination): they stay, the server owns them (remove them there if needed)")
    }
}
