import Foundation

/// JSON text for a request body built as dictionaries and arrays (`[String: Any]`), byte for byte
/// what `JSONSerialization` writes with `.sortedKeys` and `.withoutEscapingSlashes`, without its
/// cost: Foundation bridges every dictionary and sorts keys with a locale-aware comparison, about a
/// tenth of a millisecond a body, and a screenshot upload sends one body per file while the other
/// files' bytes go up.
///
/// Strings, booleans, integers, `NSNull`, arrays and dictionaries whose keys are ASCII letters and
/// digits are written here; a body holding anything else (a floating-point number, an `NSNumber`,
/// another key) is handed to `JSONSerialization` whole, so the text never differs.
enum JSONBody {
    /// The body's JSON text.
    /// - Throws: what `JSONSerialization` throws for a value JSON cannot hold.
    static func encode(_ object: Any) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        if write(object, into: &out) { return out }
        return Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    /// Appends `value`; false when it holds something left to `JSONSerialization`.
    private static func write(_ value: Any, into out: inout [UInt8]) -> Bool {
        // Exact types first: a cast to a class (`is NSNull`) or between unlike types would bridge
        // the value to Foundation's, the cost this writer is for.
        let type = type(of: value)
        if type == [String: Any].self, let object = value as? [String: Any] {
            return write(object, into: &out)
        } else if type == String.self, let text = value as? String {
            writeString(text, into: &out)
        } else if type == Bool.self, let flag = value as? Bool {
            out += flag ? Array("true".utf8) : Array("false".utf8)
        } else if type == Int.self, let number = value as? Int {
            out += Array(String(number).utf8)
        } else if type == Int64.self, let number = value as? Int64 {
            out += Array(String(number).utf8)
        } else if type == Int32.self, let number = value as? Int32 {
            out += Array(String(number).utf8)
        } else if type == UInt64.self, let number = value as? UInt64 {
            out += Array(String(number).utf8)
        } else if type == NSNull.self {
            out += Array("null".utf8)
        } else if type == [Any].self, let array = value as? [Any] {
            return write(array, into: &out)
        } else if type == [[String: Any]].self, let array = value as? [[String: Any]] {
            return write(array.map { $0 as Any }, into: &out)
        } else if type == [String].self, let array = value as? [String] {
            return write(array.map { $0 as Any }, into: &out)
        } else if let object = value as? [String: Any] {
            return write(object, into: &out)
        } else if let array = value as? [Any] {
            return write(array, into: &out)
        } else {
            return false
        }
        return true
    }

    private static func write(_ object: [String: Any], into out: inout [UInt8]) -> Bool {
        guard object.keys.allSatisfy(isPlainKey) else { return false }
        out.append(UInt8(ascii: "{"))
        for (index, key) in object.keys.sorted(by: keyPrecedes).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            guard let member = object[key], write(member, into: &out) else { return false }
        }
        out.append(UInt8(ascii: "}"))
        return true
    }

    private static func write(_ array: [Any], into out: inout [UInt8]) -> Bool {
        out.append(UInt8(ascii: "["))
        for (index, element) in array.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            guard write(element, into: &out) else { return false }
        }
        out.append(UInt8(ascii: "]"))
        return true
    }

    /// A string as `JSONSerialization` escapes it: quotation mark, backslash, the five short
    /// escapes and other control characters as `\u00xx` (lowercase hex); everything else as UTF-8,
    /// slashes included.
    private static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Keys this writer orders itself: non-empty, ASCII letters and digits only.
    private static func isPlainKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// `JSONSerialization`'s key order (`compare` with `.numeric`, `.caseInsensitive` and
    /// `.forcedOrdering`) for plain keys: letters compared without case, runs of digits by their
    /// value, then by their length (fewer leading zeros first); keys equal so far are ordered by
    /// the first letter whose case differs, small letter first.
    static func keyPrecedes(_ left: String, _ right: String) -> Bool {
        let a = Array(left.utf8), b = Array(right.utf8)
        var i = 0, j = 0
        while i < a.count, j < b.count {
            if isDigit(a[i]), isDigit(b[j]) {
                let startA = i, startB = j
                while i < a.count, isDigit(a[i]) { i += 1 }
                while j < b.count, isDigit(b[j]) { j += 1 }
                let runA = a[startA..<i].drop { $0 == UInt8(ascii: "0") }, runB = b[startB..<j].drop { $0 == UInt8(ascii: "0") }
                if runA.count != runB.count { return runA.count < runB.count }
                if !runA.elementsEqual(runB) { return runA.lexicographicallyPrecedes(runB) }
                if i - startA != j - startB { return i - startA < j - startB }
                continue
            }
            let x = lower(a[i]), y = lower(b[j])
            if x != y { return x < y }
            i += 1
            j += 1
        }
        if (a.count - i) != (b.count - j) { return a.count - i < b.count - j }
        // Equal but for case: small letters before capitals, at the first place they differ.
        for (x, y) in zip(a, b) where x != y { return isSmall(x) }
        return false
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    private static func isSmall(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) }
    private static func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte + 0x20 : byte }
}
