/// Strict SemVer 2.0.0 parsing with errors that point at the offending character.
enum SemanticVersionParser {
    /// Parses `input`, accepting one leading `v` or `V`.
    /// - Throws: `SemanticVersionParseError`.
    static func parse(_ input: String) throws -> SemanticVersion {
        try parse(input, offeringCorrections: true)
    }

    private static let coreParts: [SemanticVersionParseError.Part] = [.major, .minor, .patch]

    private static func parse(_ input: String, offeringCorrections: Bool) throws -> SemanticVersion {
        let characters = Characters(input)
        func failure(_ reason: SemanticVersionParseError.Reason, correction: () -> String? = { nil }) -> SemanticVersionParseError {
            SemanticVersionParseError(input: input, reason: reason, correction: offeringCorrections ? correction() : nil)
        }
        func identifierFailure(_ reason: SemanticVersionParseError.Reason, _ correction: String?) -> SemanticVersionParseError {
            SemanticVersionParseError(input: input, reason: reason, correction: correction)
        }
        guard !characters.isEmpty else { throw failure(.empty) }

        let start = (characters[0] == "v" || characters[0] == "V") ? 1 : 0
        let plus = characters.firstIndex(of: UInt8(ascii: "+"), in: start..<characters.count)
        let preludeEnd = plus ?? characters.count
        let dash = characters.firstIndex(of: UInt8(ascii: "-"), in: start..<preludeEnd)
        let coreEnd = dash ?? preludeEnd
        let suffix = characters.string(coreEnd..<characters.count)

        // MARK: MAJOR.MINOR.PATCH
        let fields = characters.split(start..<coreEnd)
        for (index, field) in fields.enumerated() {
            let part = coreParts[min(index, 2)]
            if let bad = characters.firstNonDigit(in: field) {
                throw failure(.invalidCharacter(characters[bad], part, position: bad + 1))
            }
        }
        let texts = fields.map { characters.string($0) }
        guard fields.count >= 3 else {
            throw failure(.missingNumbers(found: texts.filter { !$0.isEmpty }.count)) {
                guard !texts.contains(where: \.isEmpty) else { return nil }
                let padded = texts + Array(repeating: "0", count: 3 - texts.count)
                return validCorrection(padded.joined(separator: ".") + suffix)
            }
        }
        guard fields.count == 3 else { throw failure(.tooManyNumbers(found: fields.count)) }
        var numbers: [Int] = []
        for (index, field) in fields.enumerated() {
            let part = coreParts[index]
            let text = texts[index]
            if text.isEmpty { throw failure(.emptyIdentifier(part, position: field.lowerBound + 1)) }
            if text.count > 1, text.first == "0" {
                throw failure(.leadingZero(part, identifier: text)) {
                    validCorrection(texts.map(withoutLeadingZeros).joined(separator: ".") + suffix)
                }
            }
            guard let number = Int(text) else { throw failure(.numberTooLarge(part, digits: text)) }
            numbers.append(number)
        }

        // MARK: Prerelease and build metadata
        var prerelease: [String] = []
        if let dash {
            prerelease = try identifiers(characters, dash + 1..<preludeEnd, part: .prerelease, failure: identifierFailure) {
                guard offeringCorrections else { return nil }
                let prefix = characters.string(0..<(dash + 1))
                let fixed = characters.string((dash + 1)..<preludeEnd)
                    .split(separator: ".", omittingEmptySubsequences: false)
                    .map { $0.allSatisfy(\.isASCIIDigit) ? withoutLeadingZeros(String($0)) : String($0) }
                    .joined(separator: ".")
                return validCorrection(prefix + fixed + characters.string(preludeEnd..<characters.count))
            }
        }
        var buildMetadata: [String] = []
        if let plus {
            buildMetadata = try identifiers(characters, plus + 1..<characters.count, part: .buildMetadata, failure: identifierFailure) { nil }
        }
        return SemanticVersion(unchecked: numbers[0], numbers[1], numbers[2], prerelease: prerelease, buildMetadata: buildMetadata)
    }

    /// Splits and checks dot-separated identifiers in `range`.
    private static func identifiers(
        _ characters: Characters,
        _ range: Range<Int>,
        part: SemanticVersionParseError.Part,
        failure: (SemanticVersionParseError.Reason, String?) -> SemanticVersionParseError,
        leadingZeroCorrection: () -> String?
    ) throws -> [String] {
        var result: [String] = []
        for field in characters.split(range) {
            guard !field.isEmpty else {
                throw failure(.emptyIdentifier(part, position: field.lowerBound + 1), nil)
            }
            if let bad = characters.firstNonIdentifierCharacter(in: field) {
                throw failure(.invalidCharacter(characters[bad], part, position: bad + 1), nil)
            }
            let text = characters.string(field)
            if part == .prerelease, text.count > 1, text.first == "0", text.allSatisfy(\.isASCIIDigit) {
                throw failure(.leadingZero(part, identifier: text), leadingZeroCorrection())
            }
            result.append(text)
        }
        return result
    }

    private static func validCorrection(_ candidate: String) -> String? {
        (try? parse(candidate, offeringCorrections: false)).map(\.description)
    }

    private static func withoutLeadingZeros(_ digits: String) -> String {
        let trimmed = digits.drop { $0 == "0" }
        return trimmed.isEmpty ? (digits.isEmpty ? "" : "0") : String(trimmed)
    }

    static func isDigit(_ character: Character) -> Bool { character.isASCIIDigit }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    static func isIdentifierCharacter(_ character: Character) -> Bool {
        guard let value = character.singleASCIIValue else { return false }
        return isIdentifierByte(value)
    }

    /// `[0-9A-Za-z-]`, as one ASCII byte.
    static func isIdentifierByte(_ value: UInt8) -> Bool {
        isDigit(value) || (value >= UInt8(ascii: "a") && value <= UInt8(ascii: "z"))
            || (value >= UInt8(ascii: "A") && value <= UInt8(ascii: "Z")) || value == UInt8(ascii: "-")
    }

    /// True when `text` is a valid prerelease or build identifier: non-empty, `[0-9A-Za-z-]`.
    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy(isIdentifierCharacter)
    }
}

/// A version's characters by position. Text whose every character is one byte — ASCII, and no
/// `\r\n` (one character of two bytes) — which is every version anyone writes, is read as its
/// bytes: a debug build checks a 10 MB value in milliseconds, where a `Character` at a time took
/// seconds. Any other text is read as `Character`s. Either way the positions are characters.
private struct Characters {
    /// The UTF-8 bytes, one per character; empty when `characters` is set.
    private let bytes: [UInt8]
    /// The characters of text that is not one byte per character; `nil` when `bytes` is it.
    private let characters: [Character]?
    let count: Int

    init(_ input: String) {
        // Each character is at least one byte, so equal counts mean one byte per character.
        if input.utf8.count == input.count {
            bytes = Array(input.utf8)
            characters = nil
            count = bytes.count
        } else {
            let characters = Array(input)
            bytes = []
            self.characters = characters
            count = characters.count
        }
    }

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> Character {
        if let characters { return characters[index] }
        return Character(Unicode.Scalar(bytes[index]))
    }

    func string(_ range: Range<Int>) -> String {
        if let characters { return String(characters[range]) }
        return String(decoding: bytes[range], as: UTF8.self)
    }

    /// The first position in `range` of the ASCII character `ascii`.
    func firstIndex(of ascii: UInt8, in range: Range<Int>) -> Int? {
        firstIndex(in: range, bytes: { $0 == ascii }, characters: { $0.singleASCIIValue == ascii })
    }

    func firstNonDigit(in range: Range<Int>) -> Int? {
        firstIndex(in: range, bytes: { !SemanticVersionParser.isDigit($0) }, characters: { !SemanticVersionParser.isDigit($0) })
    }

    func firstNonIdentifierCharacter(in range: Range<Int>) -> Int? {
        firstIndex(
            in: range,
            bytes: { !SemanticVersionParser.isIdentifierByte($0) },
            characters: { !SemanticVersionParser.isIdentifierCharacter($0) }
        )
    }

    /// The ranges between dots in `range`, empty ones included.
    func split(_ range: Range<Int>) -> [Range<Int>] {
        var fields: [Range<Int>] = []
        var fieldStart = range.lowerBound
        while let dot = firstIndex(of: UInt8(ascii: "."), in: fieldStart..<range.upperBound) {
            fields.append(fieldStart..<dot)
            fieldStart = dot + 1
        }
        fields.append(fieldStart..<range.upperBound)
        return fields
    }

    /// A plain loop over a buffer: a debug build calls no generic sequence code per character.
    private func firstIndex(in range: Range<Int>, bytes matches: (UInt8) -> Bool, characters isMatch: (Character) -> Bool) -> Int? {
        if let characters {
            var index = range.lowerBound
            while index < range.upperBound {
                if isMatch(characters[index]) { return index }
                index += 1
            }
            return nil
        }
        return bytes.withUnsafeBufferPointer { buffer in
            var index = range.lowerBound
            while index < range.upperBound {
                if matches(buffer[index]) { return index }
                index += 1
            }
            return nil
        }
    }
}

extension Character {
    /// The ASCII value of a character made of one ASCII scalar (`"\r\n"` is two scalars: nil).
    var singleASCIIValue: UInt8? {
        let scalars = unicodeScalars
        guard scalars.count == 1, let scalar = scalars.first, scalar.isASCII else { return nil }
        return UInt8(scalar.value)
    }

    var isASCIIDigit: Bool {
        guard let value = singleASCIIValue else { return false }
        return value >= UInt8(ascii: "0") && value <= UInt8(ascii: "9")
    }
}
