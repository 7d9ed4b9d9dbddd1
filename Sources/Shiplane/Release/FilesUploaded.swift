import Foundation

/// Files put on a server that owns them (the `upload` action): they stay.
public struct FilesUploaded: Effect, Equatable {
    /// The record's name for it.
    public static let kind = "release.upload"
    /// Where they went, as people can read it (secrets redacted).
    public var destination: String

    /// Describes files uploaded to `destination`.
    public init(destination: String) { self.destination = destination }

    /// The server owns them.
    public var reach: EffectReach { .permanent }

    /// Files on someone else's server are not deleted.
    /// - Throws: `EffectStays`, always.
    public func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        if status == .done { throw EffectStays("files uploaded to \(destination) stay: the server owns them (remove them there if needed)") }
        throw EffectStays("files may have been uploaded to \(destination): they stay, the server owns them (remove them there if needed)")
    }
}
