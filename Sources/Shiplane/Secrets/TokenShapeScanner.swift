import Foundation

/// Finds well-known token shapes in text in a single pass over its UTF-8 bytes.
enum TokenShapeScanner {
    private static let tokenPrefixes: [(prefix: [UInt8], minimumBody: Int, allowsDash: Bool)] = [
        ("github_pat_", 16, false), ("ghp_", 16, false), ("gho_", 16, false), ("ghs_", 16, false),
        ("ghu_", 16, false), ("ghr_", 16, false),
        ("glpat-", 16, true), ("glcbt-", 16, true), ("gldt-", 16, true), ("glptt-", 16, true),
        ("xoxb-", 8, true), ("xoxp-", 8, true), ("xoxa-", 8, true), ("xoxr-", 8, true), ("xapp-", 8, true),
    ].map { (Array($0.0.utf8), $0.1, $0.2) }
    private static let slackHook = Array("https://hooks.slack.com/services/".utf8)
    private static let bearer = Array("bearer ".utf8)
    /// Dotted tokens: a JWT (`eyJ` is base64 of `{"`) and a Google OAuth access token (`ya29.`).
    private static let dottedPrefixes = [Array("eyJ".utf8), Array("ya29.".utf8)]
    private static let schemeSeparator = Array("://".utf8)
    private static let mask = Array(SecretRedactor.mask.utf8)

    /// `text` with every recognised token replaced by `***`.
    static func redact(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var changed = false
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            // Cheap first-byte filter keeps the scan fast on large text.
            if byte == UInt8(ascii: "g") || byte == UInt8(ascii: "x") || byte == UInt8(ascii: "h")
                || byte == UInt8(ascii: "b") || byte == UInt8(ascii: "B") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "y") {
                if let (keep, end) = match(bytes, at: index) {
                    output.append(contentsOf: bytes[index..<(index + keep)])
                    output.append(contentsOf: mask)
                    index = end
                    changed = true
                    continue
                }
            }
            output.append(byte)
            index += 1
        }
        return changed ? String(decoding: output, as: UTF8.self) : text
    }

    /// At `start`, returns how many leading bytes to keep and where the secret ends, or nil.
    private static func match(_ bytes: [UInt8], at start: Int) -> (keep: Int, end: Int)? {
        let previous: UInt8? = start > 0 ? bytes[start - 1] : nil
        let atWordStart = previous.map { !isTokenByte($0, allowsDash: true) } ?? true
        if atWordStart {
            for shape in tokenPrefixes where hasPrefix(bytes, shape.prefix, at: start, caseInsensitive: false) {
                let bodyStart = start + shape.prefix.count
                let end = scan(bytes, from: bodyStart) { isTokenByte($0, allowsDash: shape.allowsDash) }
                if end - bodyStart >= shape.minimumBody { return (0, end) }
            }
            for prefix in dottedPrefixes where hasPrefix(bytes, prefix, at: start, caseInsensitive: false) {
                let end = scan(bytes, from: start) { isTokenByte($0, allowsDash: true) || $0 == UInt8(ascii: ".") }
                let dots = bytes[start..<end].reduce(0) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 }
                if end - start >= 24, dots >= (prefix.first == UInt8(ascii: "e") ? 2 : 1) { return (0, end) }
            }
            if hasPrefix(bytes, bearer, at: start, caseInsensitive: true) {
                let bodyStart = start + bearer.count
                let end = scan(bytes, from: bodyStart) { isTokenByte($0, allowsDash: true) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "=") }
                if end - bodyStart >= 4 { return (bearer.count, end) }
            }
        }
        if hasPrefix(bytes, slackHook, at: start, caseInsensitive: false) {
            let bodyStart = start + slackHook.count
            let end = scan(bytes, from: bodyStart) { isTokenByte($0, allowsDash: true) || $0 == UInt8(ascii: "/") }
            if end > bodyStart { return (slackHook.count, end) }
        }
        if hasPrefix(bytes, schemeSeparator, at: start, caseInsensitive: false) {
            // user:password@host — the userinfo ends at '@' before any '/', '?', '#' or space.
            let bodyStart = start + schemeSeparator.count
            var cursor = bodyStart
            var at: Int?
            while cursor < bytes.count, cursor - bodyStart < 2048 {
                let byte = bytes[cursor]
                if byte == UInt8(ascii: "@") { at = cursor }
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
                    || byte <= 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") || byte == UInt8(ascii: ">") {
                    break
                }
                cursor += 1
            }
            if let at, at > bodyStart, !(bytes[bodyStart..<at].elementsEqual(mask)) {
                return (schemeSeparator.count, at)
            }
        }
        return nil
    }

    private static func isTokenByte(_ byte: UInt8, allowsDash: Bool) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            || (allowsDash && byte == UInt8(ascii: "-"))
    }

    private static func scan(_ bytes: [UInt8], from start: Int, while predicate: (UInt8) -> Bool) -> Int {
        var end = start
        while end < bytes.count, predicate(bytes[end]) { end += 1 }
        return end
    }

    private static func hasPrefix(_ bytes: [UInt8], _ prefix: [UInt8], at start: Int, caseInsensitive: Bool) -> Bool {
        guard start + prefix.count <= bytes.count else { return false }
        for offset in 0..<prefix.count {
            var byte = bytes[start + offset]
            if caseInsensitive, byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") { byte += 32 }
            if byte != prefix[offset] { return false }
        }
        return true
    }
}
