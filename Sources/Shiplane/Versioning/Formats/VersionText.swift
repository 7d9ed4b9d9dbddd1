import Foundation

/// The UTF-8 text of a version file, addressed by byte offsets so edits keep every other byte.
struct VersionText {
    let string: String
    let bytes: [UInt8]
    /// Each line's content, without its `\n` or `\r\n` terminator, as byte offsets.
    let lines: [Range<Int>]

    /// - Throws: `VersionFileError.malformed` when `data` is not UTF-8.
    init(_ data: Data, format: String) throws {
        guard let string = String(validating: data, as: UTF8.self) else {
            throw VersionFileError(.malformed, "The \(format) file is not UTF-8 text")
        }
        self.string = string
        self.bytes = Array(data)
        // A plain loop over the buffer: a debug build runs no generic sequence code per byte
        // (a 10 MB file took a second through `enumerated()`).
        self.lines = bytes.withUnsafeBufferPointer { buffer in
            var lines: [Range<Int>] = []
            var start = 0
            var offset = 0
            while offset < buffer.count {
                if buffer[offset] == UInt8(ascii: "\n") {
                    let end = offset > start && buffer[offset - 1] == UInt8(ascii: "\r") ? offset - 1 : offset
                    lines.append(start..<end)
                    start = offset + 1
                }
                offset += 1
            }
            if start < buffer.count { lines.append(start..<buffer.count) }
            return lines
        }
    }

    /// The text of a byte range that starts and ends on scalar boundaries.
    func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    /// The 1-based line number holding a byte offset.
    func lineNumber(at offset: Int) -> Int {
        var low = 0
        var high = lines.count
        while low < high {
            let middle = (low + high) / 2
            if lines[middle].lowerBound <= offset { low = middle + 1 } else { high = middle }
        }
        return max(low, 1)
    }

    /// Matches of `regex` within one line, each as its capture groups' byte ranges (index 0 is
    /// the whole match; `nil` for a group that did not take part).
    func matches(_ regex: NSRegularExpression, inLine index: Int) -> [[Range<Int>?]] {
        let range = lines[index]
        return Self.matches(regex, in: text(range)).map { $0.map { $0.map { ($0.lowerBound + range.lowerBound)..<($0.upperBound + range.lowerBound) } } }
    }

    /// Matches of `regex` in the whole text, as byte ranges of capture groups.
    func matches(_ regex: NSRegularExpression) -> [[Range<Int>?]] {
        Self.matches(regex, in: string)
    }

    static func matches(_ regex: NSRegularExpression, in string: String) -> [[Range<Int>?]] {
        let results = regex.matches(in: string, range: NSRange(string.startIndex..., in: string))
        return results.map { result in
            (0...regex.numberOfCaptureGroups).map { group in
                let nsRange = result.range(at: group)
                guard nsRange.location != NSNotFound, let range = Range(nsRange, in: string) else { return nil }
                let start = string.utf8.distance(from: string.startIndex, to: range.lowerBound)
                let length = string.utf8.distance(from: range.lowerBound, to: range.upperBound)
                return start..<(start + length)
            }
        }
    }

    /// The bytes with each range replaced; ranges must not overlap.
    func replacing(_ edits: [(range: Range<Int>, replacement: String)]) -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var position = 0
        for edit in edits.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) {
            output.append(contentsOf: bytes[position..<edit.range.lowerBound])
            output.append(contentsOf: Array(edit.replacement.utf8))
            position = edit.range.upperBound
        }
        output.append(contentsOf: bytes[position...])
        return Data(output)
    }
}

extension NSRegularExpression {
    /// Compiles a pattern written in this module; a failure is a defect, reported as one.
    static func builtIn(_ pattern: String, options: NSRegularExpression.Options = []) throws -> NSRegularExpression {
        do {
            return try NSRegularExpression(pattern: pattern, options: options)
        } catch {
            throw VersionFileError(.bug, "A built-in pattern does not compile", details: [("pattern", pattern)], underlying: [error])
        }
    }
}
