/// Collects `#123` issue numbers from text, in order and without duplicates.
///
/// A `#` counts only when it does not follow a letter, digit, `&`, `/` or `_` (so `owner/repo#1`,
/// `&#39;` and `abc#1` are not issues) and its digits are not followed by a letter (`#12ab`).
/// Numbers longer than 18 digits are ignored.
struct IssueReferenceScanner {
    private(set) var numbers: [Int] = []
    private var seen: Set<Int> = []

    mutating func scan(_ text: String) {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] == CommitTextBytes.hash else { continue }
            if index > 0 {
                let before = bytes[index - 1]
                if CommitTextBytes.isTypeByte(before) || before == 0x26 || before == 0x2F { continue }
            }
            var digitEnd = index + 1
            var number = 0
            while digitEnd < bytes.count, CommitTextBytes.isDigit(bytes[digitEnd]), digitEnd - index <= 18 {
                number = number * 10 + Int(bytes[digitEnd] - 0x30)
                digitEnd += 1
            }
            let digitCount = digitEnd - index - 1
            guard digitCount > 0, digitCount <= 18 else { continue }
            if digitEnd < bytes.count, CommitTextBytes.isTypeByte(bytes[digitEnd]) { continue }
            if seen.insert(number).inserted { numbers.append(number) }
            index = digitEnd - 1
        }
    }
}
