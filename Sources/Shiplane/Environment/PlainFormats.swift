import Foundation

// Texts a lane writes on its way (sizes in its log, locale folder names, the record's dates),
// made without Foundation's ICU-backed formatters and regular expressions. Those load ICU's data
// and code into the lane process: each first use maps some of `lib_FoundationICU` (5 MiB of a
// screenshot upload's 58 MiB peak came from three of them: a byte count, a folder name checked by
// a regular expression, a date), and regular expressions cost more than the comparison they make.

/// Byte counts as `ByteCountFormatter` writes them with `countStyle: .file` in English: decimal
/// units, bytes below 1 KB, whole KB, MB to one decimal, GB and larger to two, rounded half to
/// even on the exact decimal value, trailing zeros dropped, thousands grouped with commas
/// ("Zero KB", "1 byte", "999 bytes", "2 KB", "1,000 KB", "5.2 MB", "1.07 GB").
enum ByteCountText {
    static func file(_ count: Int64) -> String {
        if count == 0 { return "Zero KB" }
        let sign = count < 0 ? "-" : ""
        let magnitude = count.magnitude
        if magnitude < 1000 { return "\(sign)\(magnitude) byte\(magnitude == 1 ? "" : "s")" }
        let units: [(name: String, decimals: Int)] = [("KB", 0), ("MB", 1), ("GB", 2), ("TB", 2), ("PB", 2), ("EB", 2)]
        var unit = 0
        var divisor: UInt64 = 1000
        while unit + 1 < units.count, magnitude / divisor >= 1000 {
            unit += 1
            divisor *= 1000
        }
        let decimals = units[unit].decimals
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        // magnitude / divisor to `decimals` places, half to even, in exact integers (magnitude
        // × scale can exceed 64 bits for exabytes: the quotient and remainder are scaled apart).
        let whole = magnitude / divisor, rest = magnitude % divisor
        let fractionDivisor = divisor / scale
        var scaled = whole * scale + rest / fractionDivisor
        let remainder = rest % fractionDivisor
        if remainder * 2 > fractionDivisor || (remainder * 2 == fractionDivisor && scaled % 2 == 1) { scaled += 1 }
        let integer = scaled / scale
        var fraction = decimals > 0 ? String(scaled % scale) : ""
        while fraction.count < decimals { fraction = "0" + fraction }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        let digits = Array(String(integer))
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return sign + grouped + (fraction.isEmpty ? "" : "." + fraction) + " " + units[unit].name
    }
}

/// Locale and language names as the store folders and APIs spell them, checked by hand.
enum LanguageTag {
    /// deliver's locale folder names: 2–3 letters, then optionally `-` and 2–4 letters, then
    /// optionally `-` and 2 letters (`en-US`, `zh-Hans`, `zh-Hans-CN`, `ja`); ASCII letters only.
    static func looksLikeAppStoreLocale(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), parts.allSatisfy({ $0.utf8.allSatisfy(isLetter) }) else { return false }
        guard (2...3).contains(parts[0].utf8.count) else { return false }
        if parts.count == 2 { return (2...4).contains(parts[1].utf8.count) }
        if parts.count == 3 { return (2...4).contains(parts[1].utf8.count) && parts[2].utf8.count == 2 }
        return true
    }

    /// Google Play's language tags: 2–3 lowercase letters, then any number of `-` and 2–8
    /// ASCII letters or digits (`en-US`, `es-419`, `zh-Hant-TW`).
    static func looksLikePlayLanguage(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.utf8.count),
              first.utf8.allSatisfy({ (0x61...0x7A).contains($0) }) else { return false }
        return parts.dropFirst().allSatisfy { part in
            (2...8).contains(part.utf8.count) && part.utf8.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) }
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
}

/// Dates in the run's record as `JSONEncoder`'s `.iso8601` strategy writes and reads them (UTC, to
/// the second: `2026-11-26T08:15:02Z`), without the ICU time zone it loads for that.
enum RecordDates {
    static let encoding: JSONEncoder.DateEncodingStrategy = .custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(RunStore.iso8601(date))
    }

    static let decoding: JSONDecoder.DateDecodingStrategy = .custom { decoder in
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        if let date = parse(text) { return date }
        // Anything else `.iso8601` reads (kept, should a record carry one).
        if let date = ISO8601DateFormatter().date(from: text) { return date }
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected date string to be ISO8601-formatted.")
    }

    /// `yyyy-MM-ddTHH:mm:ss` then `Z` or an offset `±HH:MM`; nil for anything else.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<(from + count)] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
              let day = number(8, 2), bytes[10] == UInt8(ascii: "T"), let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"),
              let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"), let second = number(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var offset = 0
        if bytes.count == 20, bytes[19] == UInt8(ascii: "Z") {
            offset = 0
        } else if bytes.count == 25, bytes[19] == UInt8(ascii: "+") || bytes[19] == UInt8(ascii: "-"), bytes[22] == UInt8(ascii: ":"),
                  let hours = number(20, 2), let minutes = number(23, 2), hours < 24, minutes < 60 {
            offset = (hours * 3600 + minutes * 60) * (bytes[19] == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return nil
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        // timegm normalises 31 February into March: such a date is not one.
        var back = tm()
        var check = seconds
        guard gmtime_r(&check, &back) != nil, back.tm_mday == Int32(day), back.tm_mon == Int32(month - 1) else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(Int(seconds) - offset))
    }
}
