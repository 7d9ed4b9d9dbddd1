internal import CShiplane
import Foundation

/// A file's MD5 as `FileMD5Lanes` read it: the hex checksum, the bytes read, and the file's stamp
/// when it was opened (the same when the last byte was read, or the file is refused).
struct HashedFile: Sendable, Equatable {
    var checksum: String
    var size: Int64
    var stamp: FileStamp?
}

/// The MD5s of files, several at once on one thread.
///
/// One MD5 cannot go faster than its chain of dependent steps (about 600 MB/s a core here). With
/// AVX2 (`CShiplane`, MD5Lanes.c), eight files are hashed side by side, one per lane of a
/// 256-bit register, for about the instructions of one: 4.4 GB/s a core against 0.6 GB/s one
/// file at a time (a C program over eight 16 MiB buffers on this machine;
/// `FileMD5LanesTests` checks both ways against swift-crypto's MD5). Each lane takes the next
/// file the moment its file ends. Without AVX2 (other CPUs), the files are hashed one after
/// another by the same code with one lane.
enum FileMD5Lanes {
    /// Whether the eight-lane kernel runs on this CPU.
    static let isAccelerated = shiplane_md5x8_available() == 1

    /// Bytes read at a time into each lane's buffer: eight of them (256 KiB a thread) stay small
    /// beside an upload.
    static let bufferSize = 32 << 10

    /// Hashes files on the calling thread until `next` has none left: `next()` gives the next
    /// file as (a number the caller chose, its path) or nil; `isCancelled(number)` is asked
    /// before each piece of a file is read, and ends that file with `CancellationError`;
    /// `done(number, outcome)` is called once for each file `next` gave, on this thread.
    /// `accelerated: false` hashes one file at a time even where the kernel runs (the tests
    /// compare both ways).
    static func hash(accelerated: Bool = isAccelerated, next: () -> (Int, String)?, isCancelled: (Int) -> Bool,
                     done: (Int, Result<HashedFile, any Error>) -> Void) {
        let laneCount = accelerated && isAccelerated ? 8 : 1
        let states = UnsafeMutablePointer<UInt32>.allocate(capacity: 32)
        states.initialize(repeating: 0, count: 32)
        // What an idle lane hashes, so the kernel always runs eight: its result is thrown away.
        let idle = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 64)
        idle.initializeMemory(as: UInt8.self, repeating: 0, count: bufferSize)
        // One buffer per lane, read into again and again by the files that pass through it.
        let buffers = (0..<laneCount).map { _ in UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 64) }
        var lanes: [Lane?] = Array(repeating: nil, count: laneCount)
        defer {
            for lane in lanes { lane?.close() }
            for buffer in buffers { buffer.deallocate() }
            states.deallocate()
            idle.deallocate()
        }
        var exhausted = false
        while true {
            for index in lanes.indices where lanes[index] == nil && !exhausted {
                while lanes[index] == nil {
                    guard let (number, path) = next() else {
                        exhausted = true
                        break
                    }
                    do {
                        lanes[index] = try Lane(number: number, path: path, buffer: buffers[index])
                        let state = states + 4 * index
                        (state[0], state[1], state[2], state[3]) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
                    } catch {
                        done(number, .failure(error))
                    }
                }
            }
            let active = lanes.indices.filter { lanes[$0] != nil }
            if active.isEmpty { return }
            // Each lane's buffer holds a whole block, or its file is at its end and finished here.
            var ended = false
            for index in active {
                guard let lane = lanes[index] else { continue }
                do {
                    if isCancelled(lane.number) { throw CancellationError() }
                    try lane.fill()
                    if lane.buffered < 64 {
                        let hashed = try lane.finish(state: states + 4 * index)
                        lanes[index] = nil
                        done(lane.number, .success(hashed))
                        ended = true
                    }
                } catch {
                    lane.close()
                    lanes[index] = nil
                    done(lane.number, .failure(error))
                    ended = true
                }
            }
            if ended { continue }
            var blocks = Int.max
            for index in active { if let lane = lanes[index] { blocks = min(blocks, lane.buffered / 64) } }
            if laneCount == 1 || active.count == 1 {
                for index in active {
                    guard let lane = lanes[index] else { continue }
                    shiplane_md5_blocks(states + 4 * index, lane.readPointer, blocks)
                }
            } else {
                var pointers = [UnsafePointer<UInt8>?](repeating: UnsafePointer(idle.assumingMemoryBound(to: UInt8.self)), count: 8)
                for index in active { pointers[index] = lanes[index]?.readPointer }
                pointers.withUnsafeBufferPointer { shiplane_md5x8_blocks(states, $0.baseAddress, blocks) }
            }
            for index in active { lanes[index]?.start += 64 * blocks }
        }
    }

    /// One file on its way through a lane: its descriptor and the bytes read and not yet hashed.
    private final class Lane {
        let number: Int
        let path: String
        let stamp: FileStamp?
        private var descriptor: Int32
        private let buffer: UnsafeMutableRawPointer
        var start = 0
        private var end = 0
        private var total: Int64 = 0
        private var atEnd = false

        init(number: Int, path: String, buffer: UnsafeMutableRawPointer) throws {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw FileMD5Lanes.unreadable(path) }
            self.number = number
            self.path = path
            self.descriptor = descriptor
            stamp = FileStamp(descriptor: descriptor)
            self.buffer = buffer
        }

        deinit { close() }

        var buffered: Int { end - start }
        var readPointer: UnsafePointer<UInt8> { UnsafePointer((buffer + start).assumingMemoryBound(to: UInt8.self)) }

        func close() {
            if descriptor >= 0 { Foundation.close(descriptor) }
            descriptor = -1
        }

        /// Reads until the buffer is full or the file ends, when less than a block is left.
        func fill() throws {
            guard buffered < 64, !atEnd else { return }
            let left = buffered
            if left > 0 { memmove(buffer, buffer + start, left) }
            start = 0
            end = left
            while end < FileMD5Lanes.bufferSize {
                let count = read(descriptor, buffer + end, FileMD5Lanes.bufferSize - end)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw FileMD5Lanes.unreadable(path)
                }
                if count == 0 {
                    atEnd = true
                    break
                }
                end += count
                total += Int64(count)
            }
        }

        /// The last bytes, MD5's padding and the length in bits; the file must be as it was opened.
        func finish(state: UnsafeMutablePointer<UInt32>) throws -> HashedFile {
            var block = [UInt8](repeating: 0, count: 128)
            let tail = buffered
            block.withUnsafeMutableBytes { raw in
                if tail > 0, let base = raw.baseAddress { memcpy(base, buffer + start, tail) }
            }
            block[tail] = 0x80
            let length = tail < 56 ? 64 : 128
            let bits = UInt64(total) &* 8
            for byte in 0..<8 { block[length - 8 + byte] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(byte))) }
            block.withUnsafeBufferPointer { shiplane_md5_blocks(state, $0.baseAddress, length / 64) }
            // Written to while it was read: the MD5 is of no one version of the file.
            guard FileStamp(descriptor: descriptor) == stamp else {
                close()
                throw ShiplaneError("\(path) changed while it was read", suggestion: "run again once nothing writes to the folder")
            }
            close()
            let digits = Array("0123456789abcdef".utf8)
            var hex: [UInt8] = []
            hex.reserveCapacity(32)
            for word in 0..<4 {
                for byte in 0..<4 {
                    let value = UInt8(truncatingIfNeeded: state[word] >> (8 * UInt32(byte)))
                    hex.append(digits[Int(value >> 4)])
                    hex.append(digits[Int(value & 0xF)])
                }
            }
            return HashedFile(checksum: String(decoding: hex, as: UTF8.self), size: total, stamp: stamp)
        }
    }

    static func unreadable(_ path: String) -> ShiplaneError {
        ShiplaneError("\(path) cannot be read: \(String(cString: strerror(errno)))", suggestion: "check its permissions")
    }
}
