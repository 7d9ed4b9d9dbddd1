import Foundation

/// Parses the date forms git accepts in `GIT_AUTHOR_DATE` and `GIT_COMMITTER_DATE`.
///
/// Hand-written because git's forms are its own (`@1112911993 +0200` is not ISO 8601) and
/// Foundation's formatters each take one fixed layout. Covered: git's internal form
/// (`[@]<unix> [+hhmm]`), ISO 8601 (`2005-04-07T22:13:13[.frac][Z|+02:00|+0200]`, `T` or a space,
/// seconds optional) and RFC 2822 (`[Thu, ]07 Apr 2005 22:13:13 +0200`). A date without a zone is
/// local time, as in git. A date alone (`2005-04-07`) is refused, as git refuses it.
enum GitDate {
    /// Seconds since 1970 (UTC) and the zone offset in minutes, or nil for text git would refuse.
    static func parse(_ text: String, timeZone: TimeZone) -> (seconds: Int64, offsetMinutes: Int)? {
        var scanner = DateScanner(text.trimmingCharacters(in: .whitespaces))
        if let raw = parseRaw(&scanner, timeZone: timeZone) { return raw }
        scanner.position = 0
        if let iso = parseISO(&scanner, timeZone: timeZone) { return iso }
        scanner.position = 0
        return parseRFC2822(&scanner, timeZone: timeZone)
    }

    // MARK: - Forms

    private static func parseRaw(_ scanner: inout DateScanner, timeZone: TimeZone) -> (Int64, Int)? {
        let marked = scanner.skip("@")
        guard let digits = scanner.digits(), let seconds = Int64(digits) else { return nil }
        // Without '@' git reads a bare number as a timestamp only when it is large enough.
        guard marked || seconds >= 100_000_000 || scanner.peekIsSpaceThenZone else { return nil }
        scanner.skipSpaces()
        if scanner.atEnd { return (seconds, localOffset(at: seconds, timeZone)) }
        guard let offset = scanner.zone(), scanner.atEnd else { return nil }
        return (seconds, offset)
    }

    private static func parseISO(_ scanner: inout DateScanner, timeZone: TimeZone) -> (Int64, Int)? {
        guard let year = scanner.number(length: 4), scanner.skip("-"),
              let month = scanner.number(length: 2), scanner.skip("-"),
              let day = scanner.number(length: 2),
              scanner.skip("T") || scanner.skip(" ") || scanner.skip("t")
        else { return nil }
        scanner.skipSpaces()
        guard let time = scanner.timeOfDay() else { return nil }
        return finish(&scanner, year: year, month: month, day: day, time: time, timeZone: timeZone)
    }

    private static func parseRFC2822(_ scanner: inout DateScanner, timeZone: TimeZone) -> (Int64, Int)? {
        if let word = scanner.letters() {
            guard weekdays.contains(word.lowercased().prefix(3)) else { return nil }
            _ = scanner.skip(",")
            scanner.skipSpaces()
        }
        guard let day = scanner.digits().flatMap({ Int($0) }) else { return nil }
        scanner.skipSpaces()
        guard let monthName = scanner.letters(),
              let month = months.firstIndex(of: String(monthName.lowercased().prefix(3)))
        else { return nil }
        scanner.skipSpaces()
        guard let year = scanner.number(length: 4) else { return nil }
        scanner.skipSpaces()
        guard let time = scanner.timeOfDay() else { return nil }
        return finish(&scanner, year: year, month: month + 1, day: day, time: time, timeZone: timeZone)
    }

    private static func finish(
        _ scanner: inout DateScanner, year: Int, month: Int, day: Int, time: (Int, Int, Int), timeZone: TimeZone
    ) -> (Int64, Int)? {
        guard (1...12).contains(month), (1...31).contains(day), time.0 < 24, time.1 < 60, time.2 <= 60 else { return nil }
        scanner.skipSpaces()
        let local = daysFromCivil(year: year, month: month, day: day) * 86_400
            + Int64(time.0 * 3600 + time.1 * 60 + time.2)
        if scanner.atEnd {
            // Local time: find the offset in force at that instant (two rounds settle DST edges).
            var offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local))))
            offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(local - offset))))
            return (local - offset, Int(offset / 60))
        }
        guard let offset = scanner.zone(), scanner.atEnd else { return nil }
        return (local - Int64(offset) * 60, offset)
    }

    private static func localOffset(at seconds: Int64, _ timeZone: TimeZone) -> Int {
        timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds))) / 60
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let weekdays: Set<Substring> = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
}

/// A cursor over the bytes of a date string.
private struct DateScanner {
    let bytes: [UInt8]
    var position = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { position >= bytes.count }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skip(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, current == ascii else { return false }
        position += 1
        return true
    }

    mutating func skipSpaces() {
        while current == UInt8(ascii: " ") || current == UInt8(ascii: "\t") { position += 1 }
    }

    mutating func digits() -> String? {
        let start = position
        while let byte = current, (48...57).contains(byte) { position += 1 }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    mutating func letters() -> String? {
        let start = position
        while let byte = current, (65...90).contains(byte) || (97...122).contains(byte) { position += 1 }
        return position > start ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
    }

    /// Exactly `length` digits.
    mutating func number(length: Int) -> Int? {
        guard position + length <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[position..<position + length] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        position += length
        return value
    }

    /// `HH:MM[:SS[.fraction]]`.
    mutating func timeOfDay() -> (Int, Int, Int)? {
        guard let hour = number(length: 2), skip(":"), let minute = number(length: 2) else { return nil }
        var second = 0
        if skip(":") {
            guard let value = number(length: 2) else { return nil }
            second = value
            if skip(".") || skip(",") { _ = digits() }
        }
        return (hour, minute, second)
    }

    var peekIsSpaceThenZone: Bool {
        var copy = self
        copy.skipSpaces()
        return copy.position > position && copy.zone() != nil && copy.atEnd
    }

    /// `Z`, `+hhmm`, `+hh:mm` or `+hh`, as minutes east of UTC.
    mutating func zone() -> Int? {
        if skip("Z") || skip("z") { return 0 }
        let sign: Int
        if skip("+") { sign = 1 } else if skip("-") { sign = -1 } else { return nil }
        guard let hours = number(length: 2) else { return nil }
        var minutes = 0
        if !atEnd {
            _ = skip(":")
            guard let value = number(length: 2) else { return nil }
            minutes = value
        }
        guard hours <= 14, minutes < 60 else { return nil }
        return sign * (hours * 60 + minutes)
    }
}
