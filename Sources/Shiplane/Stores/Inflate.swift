internal import CZlib
import Foundation

/// Raw DEFLATE decompression and CRC-32 through the system zlib, for small zip entries.
enum Inflate {
    /// Inflates a whole raw-DEFLATE stream of known output size; nil when it is corrupt.
    static func raw(_ input: [UInt8], expectedSize: Int) -> [UInt8]? {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: max(1, expectedSize))
        var input = input
        let status: Int32 = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = uInt(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = uInt(outBuffer.count)
                return inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == expectedSize else { return nil }
        return Array(output.prefix(expectedSize))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var checksum = CRC32()
        bytes.withUnsafeBytes { checksum.update($0) }
        return checksum.value
    }
}
