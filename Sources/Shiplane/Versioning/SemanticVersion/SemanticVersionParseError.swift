/// Why a text is not a semantic version, with the position of the problem and a fix where known.
package struct SemanticVersionParseError: ReportableError, Equatable {
    /// The part of a version a problem was found in.
    package enum Part: String, Sendable, Equatable {
        /// MAJOR.
        case major = "major number"
        /// MINOR.
        case minor = "minor number"
        /// PATCH.
        case patch = "patch number"
        /// The prerelease identifiers after `-`.
        case prerelease = "prerelease"
        /// The build metadata after `+`.
        case buildMetadata = "build metadata"
    }

    /// What is wrong with the text.
    package enum Reason: Sendable, Equatable {
        /// The text is empty.
        case empty
        /// Fewer than three numbers before any `-` or `+` (`1.2`).
        case missingNumbers(found: Int)
        /// More than three numbers (`1.2.3.4`).
        case tooManyNumbers(found: Int)
        /// A number or a numeric prerelease identifier with a leading zero (`01`).
        case leadingZero(Part, identifier: String)
        /// An empty number or identifier (`1..2`, `1.0.0-`, `1.0.0-a..b`); position is 1-based.
        case emptyIdentifier(Part, position: Int)
        /// A character SemVer does not allow here; position is 1-based, in characters of the input.
        case invalidCharacter(Character, Part, position: Int)
        /// A MAJOR, MINOR or PATCH number larger than `Int.max`.
        case numberTooLarge(Part, digits: String)
        /// A negative number given to the memberwise initialiser.
        case negativeNumber
    }

    /// The text that failed to parse, as given (cut after 120 characters, saying so: `quotedFromFile`).
    package let input: String
    /// What is wrong with it.
    package let reason: Reason
    /// The nearest valid version, when there is an obvious one (`1.2.0` for `1.2`).
    package let correction: String?

    /// Creates the error for `input`, with the nearest valid version when there is one.
    package init(input: String, reason: Reason, correction: String? = nil) {
        self.input = quotedFromFile(input)
        self.reason = reason
        self.correction = correction
    }

    /// Says what is wrong and where.
    package var message: String {
        let subject = "'\(input)' is not a semantic version"
        switch reason {
        case .empty:
            return "An empty text is not a semantic version"
        case .missingNumbers(let found):
            return "\(subject): SemVer needs three numbers, MAJOR.MINOR.PATCH, and this has \(found)"
        case .tooManyNumbers(let found):
            return "\(subject): SemVer needs exactly three numbers, MAJOR.MINOR.PATCH, and this has \(found)"
        case .leadingZero(let part, let identifier):
            let what = part == .prerelease ? "the numeric prerelease identifier" : "the \(part.rawValue)"
            return "\(subject): \(what) '\(quotedFromFile(identifier))' has a leading zero"
        case .emptyIdentifier(let part, let position):
            let what = [.major, .minor, .patch].contains(part) ? "the \(part.rawValue) is empty" : "the \(part.rawValue) has an empty identifier"
            return "\(subject): \(what) at position \(position)"
        case .invalidCharacter(let character, let part, let position):
            return "\(subject): invalid character \(Self.describe(character)) at position \(position) in the \(part.rawValue)"
        case .numberTooLarge(let part, let digits):
            return "\(subject): the \(part.rawValue) \(quotedFromFile(digits)) is larger than the largest supported number (\(Int.max))"
        case .negativeNumber:
            return "\(subject): MAJOR, MINOR and PATCH cannot be negative"
        }
    }

    /// The input.
    package var info: [(key: String, value: String)] {
        [("input", input)]
    }

    /// The correction when there is one, else how to fix this kind of mistake (nil when there is no fix to offer).
    package var suggestion: String? {
        if let correction {
            return "Did you mean \(correction)?"
        }
        switch reason {
        case .empty, .missingNumbers:
            return "Write a version as MAJOR.MINOR.PATCH, for example 1.0.0"
        case .tooManyNumbers:
            return "Keep three numbers and put the rest in a prerelease (1.2.3-rc.4) or build metadata (1.2.3+4)"
        case .leadingZero:
            return "Remove the leading zeros"
        case .emptyIdentifier:
            return "Remove the extra '.', '-' or '+', or put an identifier between them"
        case .invalidCharacter(_, let part, _):
            switch part {
            case .major, .minor, .patch:
                return "MAJOR, MINOR and PATCH may contain only the digits 0-9"
            case .prerelease, .buildMetadata:
                return "Identifiers may contain only ASCII letters, digits and '-', separated by '.'"
            }
        case .numberTooLarge, .negativeNumber:
            return nil
        }
    }

    /// Quotes a character for a message, naming its code point when it is not plain ASCII.
    private static func describe(_ character: Character) -> String {
        let scalars = character.unicodeScalars
        if scalars.count == 1, let scalar = scalars.first, scalar.isASCII, scalar.value >= 0x20, scalar.value < 0x7F {
            return "'\(character)'"
        }
        let codes = scalars.map { "U+" + String($0.value, radix: 16, uppercase: true).leftPadded(to: 4) }
        let printable = scalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
        return printable ? "'\(character)' (\(codes.joined(separator: " ")))" : codes.joined(separator: " ")
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
