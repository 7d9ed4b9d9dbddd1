import Foundation

/// An email as RFC 5322 and MIME want it: `Date`, `Message-ID`, `From`, `To`, `Cc`, `Subject`
/// (RFC 2047 encoded-words when not ASCII), and a `multipart/alternative` body with a
/// `text/plain` and a `text/html` part, both UTF-8 in quoted-printable, lines at most 76 characters.
package struct MIMEMessage: Sendable, Equatable {
    /// The sender, `address` or `Name <address>`.
    package var from: EmailAddress
    /// The recipients shown in `To`.
    package var to: [EmailAddress]
    /// The recipients shown in `Cc`.
    package var cc: [EmailAddress]
    /// The subject line, any Unicode.
    package var subject: String
    /// The plain-text body.
    package var text: String
    /// The HTML body.
    package var html: String

    /// Creates a message; nothing is checked here (the addresses were parsed already).
    package init(from: EmailAddress, to: [EmailAddress], cc: [EmailAddress] = [], subject: String, text: String, html: String) {
        self.from = from
        self.to = to
        self.cc = cc
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// The HTML part made from plain text: escaped, paragraphs kept, lines broken as written.
    package static func html(fromText text: String) -> String {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        let paragraphs = escaped.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n")
            .map { "<p>" + $0.replacingOccurrences(of: "\n", with: "<br>\n") + "</p>" }
        return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n" + paragraphs.joined(separator: "\n") + "\n</body></html>\n"
    }

    /// The message as sent after `DATA` (before dot-stuffing), lines ending in CRLF.
    /// - Parameters:
    ///   - date: the `Date` header's time.
    ///   - messageID: the `Message-ID`'s inside, `unique@domain`.
    ///   - boundary: the multipart boundary (must not occur in the parts; quoted-printable never makes `--shiplane-`).
    ///   - extraHeaders: more headers, by name and value, put after `MIME-Version`.
    package func rendered(date: Date, messageID: String, boundary: String, extraHeaders: [(String, String)] = []) -> String {
        var headers: [(String, String)] = [
            ("Date", Self.rfc5322Date(date)),
            ("From", from.header),
            ("To", Self.folded(to.map(\.header), after: "To: ")),
        ]
        if !cc.isEmpty { headers.append(("Cc", Self.folded(cc.map(\.header), after: "Cc: "))) }
        headers += [
            ("Subject", Self.encodedWords(subject)),
            ("Message-ID", "<\(messageID)>"),
            ("MIME-Version", "1.0"),
        ]
        headers += extraHeaders
        headers.append(("Content-Type", "multipart/alternative;\r\n boundary=\"\(boundary)\""))
        var lines = headers.map { "\($0.0): \($0.1)" }
        lines.append("")
        lines.append("This is a multi-part message in MIME format.")
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines.append("--\(boundary)")
            lines.append("Content-Type: \(type); charset=utf-8")
            lines.append("Content-Transfer-Encoding: quoted-printable")
            lines.append("")
            lines.append(Self.quotedPrintable(body))
        }
        lines.append("--\(boundary)--")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    // MARK: - Encodings

    /// `Wed, 25 Nov 2026 17:06:06 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }

    /// `text` as it is when printable ASCII, else RFC 2047 `=?UTF-8?B?…?=` words of at most 75
    /// characters (never splitting a character), folded onto continuation lines.
    static func encodedWords(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) && text.count <= 66 { return text }
        // "=?UTF-8?B?" + "?=" is 12 characters; 39 bytes are 52 base64 characters: a word of 64,
        // which leaves room for the header's name on the first line (lines stay within 78).
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 39 {
                words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
        return words.joined(separator: "\r\n ")
    }

    /// Items joined by ", ", folded onto continuation lines so that no line passes 76 characters.
    static func folded(_ items: [String], after name: String) -> String {
        var result = ""
        var width = name.count
        for (index, item) in items.enumerated() {
            let piece = index == 0 ? item : ", " + item
            if index > 0 && width + piece.count > 76 {
                result += ",\r\n " + item
                width = 1 + item.count
            } else {
                result += piece
                width += piece.count
            }
        }
        return result
    }

    /// RFC 2045 quoted-printable of UTF-8 text: line breaks become CRLF, lines are soft-broken at
    /// 76 characters, `=` and bytes outside printable ASCII are `=XX`, and a space or tab at a
    /// line's end is encoded so no transport strips it.
    static func quotedPrintable(_ text: String) -> String {
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n").components(separatedBy: "\n")
        return lines.map { line -> String in
            var output = ""
            var width = 0
            let bytes = Array(line.utf8)
            for (index, byte) in bytes.enumerated() {
                let last = index == bytes.count - 1
                let literal = (byte >= 33 && byte <= 126 && byte != 61) || ((byte == 32 || byte == 9) && !last)
                let piece = literal ? String(UnicodeScalar(byte)) : String(format: "=%02X", byte)
                if width + piece.count > 75 {
                    output += "=\r\n"
                    width = 0
                }
                output += piece
                width += piece.count
            }
            return output
        }.joined(separator: "\r\n")
    }
}

/// One email address, with an optional display name.
package struct EmailAddress: Sendable, Equatable {
    /// `local@domain`.
    package var address: String
    /// The display name, when given.
    package var name: String?

    /// Parses `local@domain` or `Name <local@domain>`.
    /// - Throws: `EmailError.invalidAddress` saying what is wrong (line breaks, no `@`, spaces).
    package init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) { throw EmailError.invalidAddress(text, reason: "it holds a line break") }
        var address = trimmed
        var name: String?
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            address = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            let shown = trimmed[..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            name = shown.isEmpty ? nil : shown
        }
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw EmailError.invalidAddress(text, reason: "an address is local@domain, with one @")
        }
        guard address.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"<>(),;:\\\"[]".unicodeScalars.contains($0) }) else {
            throw EmailError.invalidAddress(text, reason: "an address holds no spaces, brackets or other special characters")
        }
        guard parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !parts[1].contains("..") else {
            throw EmailError.invalidAddress(text, reason: "the domain \(parts[1]) is not a domain name")
        }
        self.address = address
        self.name = name
    }

    /// The domain part.
    var domain: String { String(address.split(separator: "@").last ?? "localhost") }

    /// How the address appears in a header: the name quoted or RFC 2047 encoded, then `<address>`.
    var header: String {
        guard let name else { return address }
        let plain = name.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
        let shown = plain ? "\"" + name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            : MIMEMessage.encodedWords(name)
        return "\(shown) <\(address)>"
    }
}
