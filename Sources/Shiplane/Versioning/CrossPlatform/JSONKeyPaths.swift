import Foundation

/// Finds the scalar values of a JSON text by key path (`expo.ios.buildNumber`), with their
/// byte ranges: inside the quotes for a string, the token for a number. Arrays are entered
/// but their elements have no key path, so nothing inside one is found.
enum JSONKeyPaths {
    struct Value {
        let path: [String]
        let range: Range<Int>
        let isString: Bool
    }

    static func values(in text: VersionText) -> [Value] {
        let bytes = text.bytes
        // Each open container: nil for an array, else the key path of the object.
        var stack: [[String]?] = []
        var pendingKey: String?
        var values: [Value] = []
        var index = 0
        func path(for key: String) -> [String]? {
            guard let last = stack.last, let parent = last else { return nil }
            return parent + [key]
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                if stack.isEmpty { stack.append([]) } else { stack.append(pendingKey.flatMap(path(for:))) }
                pendingKey = nil
                index += 1
            case UInt8(ascii: "["):
                stack.append(nil)
                pendingKey = nil
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = stack.popLast()
                index += 1
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
                let contents = (index + 1)..<min(end, bytes.count)
                index = end + 1
                if let key = pendingKey {
                    if let full = path(for: key) { values.append(Value(path: full, range: contents, isString: true)) }
                    pendingKey = nil
                } else if stack.last.map({ $0 != nil }) == true, next(bytes, from: index) == UInt8(ascii: ":") {
                    pendingKey = text.text(contents)
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = index
                while end < bytes.count, "-+.eE0123456789".utf8.contains(bytes[end]) { end += 1 }
                if let key = pendingKey, let full = path(for: key) { values.append(Value(path: full, range: index..<end, isString: false)) }
                pendingKey = nil
                index = end
            case UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
            default:
                pendingKey = nil
                index += 1
            }
        }
        return values
    }

    private static func next(_ bytes: [UInt8], from start: Int) -> UInt8? {
        bytes[min(start, bytes.count)...].first { ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")].contains($0) }
    }
}
