import Foundation
internal import NIOCore

/// Bytes before a file, the file's chunks as `FileChunkSequence` reads them, and bytes after it:
/// one `multipart/form-data` part streamed from disk.
struct WrappedChunkSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let prefix: [UInt8]
    let file: FileChunkSequence
    let suffix: [UInt8]

    func makeAsyncIterator() -> Iterator { Iterator(prefix: prefix, file: file.makeAsyncIterator(), suffix: suffix) }

    final class Iterator: AsyncIteratorProtocol {
        private var stage = 0
        private let prefix: [UInt8]
        private let file: FileChunkSequence.Iterator
        private let suffix: [UInt8]

        init(prefix: [UInt8], file: FileChunkSequence.Iterator, suffix: [UInt8]) {
            self.prefix = prefix
            self.file = file
            self.suffix = suffix
        }

        func next() async throws -> ByteBuffer? {
            while true {
                switch stage {
                case 0:
                    stage = 1
                    if !prefix.isEmpty { return ByteBuffer(bytes: prefix) }
                case 1:
                    if let chunk = try await file.next() { return chunk }
                    stage = 2
                case 2:
                    stage = 3
                    if !suffix.isEmpty { return ByteBuffer(bytes: suffix) }
                default:
                    return nil
                }
            }
        }
    }
}
