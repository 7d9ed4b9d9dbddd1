internal import CZlib
import Foundation

/// Raw DEFLATE compression through the system zlib, fed in chunks.
final class DeflateStream {
    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false

    /// - Throws: when zlib cannot be initialised.
    init(level: Int32) throws {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Negative window bits: raw deflate, no zlib header; gzip and zip add their own.
        let status = deflateInit2_(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw ShiplaneError("zlib could not start compressing (status \(status))")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input` (and flushes everything when `finish`), passing output to `sink`.
    func compress(_ input: UnsafeRawBufferPointer, finish: Bool, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !finished else { return }
        var output = [UInt8](repeating: 0, count: 64 * 1024)
        let base = input.baseAddress.map { UnsafeMutablePointer(mutating: $0.assumingMemoryBound(to: Bytef.self)) }
        stream.pointee.next_in = base
        stream.pointee.avail_in = uInt(input.count)
        var rounds = 0
        while true {
            rounds += 1
            let (status, produced): (Int32, Int) = output.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                let status = deflate(stream, finish ? Z_FINISH : Z_NO_FLUSH)
                return (status, buffer.count - Int(stream.pointee.avail_out))
            }
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                throw ShiplaneError("zlib failed while compressing (status \(status))")
            }
            if produced > 0 { try output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0.prefix(produced))) } }
            if finish {
                if status == Z_STREAM_END { finished = true; return }
            } else if stream.pointee.avail_in == 0, stream.pointee.avail_out > 0 {
                return
            }
            if status == Z_BUF_ERROR, produced == 0 { return }
            if rounds > 1_000_000 { throw ShiplaneError("zlib did not finish compressing") }
        }
    }
}

/// CRC-32 (the gzip/zip checksum) through the system zlib.
struct CRC32 {
    private(set) var value: UInt32 = 0

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        value = UInt32(truncatingIfNeeded: crc32(uLong(value), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
    }
}

