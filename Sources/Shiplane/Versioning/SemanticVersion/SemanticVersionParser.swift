/// Strict SemVer 2.0.0 parsing with errors that point at the offending character.
enum SemanticVersionParser {
    /// Parses `input`, accepting one leading `v` or `V`.
    /// - Throws: `SemanticVersionParseError`.
    static func parse(_ input: String) throws -> SemanticVersion {
        try parse(input, offeringCorrections: true)
    }

    private static let coreParts: [SemanticVersionParseError.Part] = [.major, .minor, .patch]

    private static func parse(_ input: String, offeringCorrections: Bool) throws -> SemanticVersion {
        let characters = Array(input)
        func failure(_ reason: SemanticVersionParseError.Reason, correction: () -> String? = { nil }) -> SemanticVersionParseError {
            SemanticVersionParseError(input: input, reason: reason, correction: offeringCorrections ? correction() : nil)
        }
        func identifierFailure(_ reason: SemanticVersionParseError.Reason, _ correction: String?) -> SemanticVersionParseError {
            SemanticVersionParseError(input: input, reason: reason, correction: correction)
        }
        guard !characters.isEmpty else { throw failure(.empty) }

        let start = (characters[0] == "v" || characters[0] == "V") ? 1 : 0
        let plus = characters[start...].firstIndex(of: "+")
        let preludeEnd = plus ?? characters.count
        let dash = characters[start..<preludeEnd].firstIndex(of: "-")
        let coreEnd = dash ?? preludeEnd
        let suffix = String(characters[coreEnd...])

        // MARK: MAJOR.MINOR.PATCH
        let fields = split(characters, start..<coreEnd)
        for (index, field) in fields.enumerated() {
            let part = coreParts[min(index, 2)]
            if let bad = field.first(where: { !isDigit(characters[$0]) }) {
                throw failure(.invalidCharacter(characters[bad], part, position: bad + 1))
            }
        }
        let texts = fields.map { String(characters[$0]) }
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
                let prefix = String(characters[..<(dash + 1)])
                let fixed = String(characters[(dash + 1)..<preludeEnd])
                    .split(separator: ".", omittingEmptySubsequences: false)
                    .map { $0.allSatisfy(\.isASCIIDigit) ? withoutLeadingZeros(String($0)) : String($0) }
                    .joined(separator: ".")
                return validCorrection(prefix + fixed + String(characters[preludeEnd...]))
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
        _ characters: [Character],
        _ range: Range<Int>,
        part: SemanticVersionParseError.Part,
        failure: (SemanticVersionParseError.Reason, String?) -> SemanticVersionParseError,
        leadingZeroCorrection: () -> String?
    ) throws -> [String] {
        var result: [String] = []
        for field in split(characters, range) {
            guard !field.isEmpty else {
                throw failure(.emptyIdentifier(part, position: field.lowerBound + 1), nil)
            }
            if let bad = field.first(where: { !isIdentifierCharacter(characters[$0]) }) {
                throw failure(.invalidCharacter(characters[bad], part, position: bad + 1), nil)
            }
            let text = String(characters[field])
            if part == .prerelease, text.count > 1, text.first == "0", text.allSatisfy(\.isASCIIDigit) {
                throw failure(.leadingZero(part, identifier: text), leadingZeroCorrection())
            }
            result.append(text)
        }
        return result
    }

    /// The ranges between dots in `range`, empty ones included.
    private static func split(_ characters: [Character], _ range: Range<Int>) -> [Range<Int>] {
        var fields: [Range<Int>] = []
        var fieldStart = range.lowerBound
        for index in range where characters[index] == "." {
            fields.append(fieldStart..<index)
            fieldStart = index + 1
        }
        fields.append(fieldStart..<range.upperBound)
        return fields
    }

    private static func validCorrection(_ candidate: String) -> String? {
        (try? parse(candidate, offeringCorrections: false)).map(\.description)
    }

    private static func withoutLeadingZeros(_ digits: String) -> String {
        let trimmed = digits.drop { $0 == "0" }
        return trimmed.isEmpty ? (digits.isEmpty ? "" : "0") : String(trimmed)
    }

    static func isDigit(_ character: Character) -> Bool { character.isASCIIDigit }

    static func isIdentifierCharacter(_ character: Character) -> Bool {
        guard let value = character.singleASCIIValue else { return false }
        switch value {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    /// True when `text` is a valid prerelease or build identifier: non-empty, `[0-9A-Za-z-]`.
    static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy(isIdentifierCharacter)
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
