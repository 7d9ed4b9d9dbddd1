import Foundation

/// Build numbers: checking, incrementing and taking them from CI.
///
/// A build number is digits, optionally in dot-separated groups (`42`, `2024.5.1`), as
/// `CFBundleVersion` and `CURRENT_PROJECT_VERSION` allow.
package enum BuildNumber {
    /// The CI variables that carry a build number, in the order they are tried.
    package static let ciVariables = [
        "GITHUB_RUN_NUMBER", "BUILD_NUMBER", "CI_PIPELINE_IID", "CIRCLE_BUILD_NUM", "BITRISE_BUILD_NUMBER",
    ]

    /// A build number taken from a CI variable.
    package struct FromCI: Hashable, Sendable {
        /// The variable it came from, such as `GITHUB_RUN_NUMBER`.
        package let variable: String
        /// The validated build number.
        package let value: String
    }

    /// Checks that `value` is digits in dot-separated groups and returns it unchanged.
    /// - Throws: `BuildNumberError` naming the first invalid character or the empty group.
    @discardableResult
    package static func validated(_ value: String) throws -> String {
        guard !value.isEmpty else { throw BuildNumberError(value: value, problem: "it is empty") }
        for (offset, character) in value.enumerated() where !(character.isASCIIDigit || character == ".") {
            throw BuildNumberError(value: value, problem: "it contains '\(character)' at position \(offset + 1); only digits and dots are allowed")
        }
        if value.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            throw BuildNumberError(value: value, problem: "it has an empty group between dots")
        }
        return value
    }

    /// The next build number: the last group plus one, at any length (`41` → `42`,
    /// `2024.5.9` → `2024.5.10`, `0099` → `0100`).
    /// - Throws: `BuildNumberError` when `current` is not a build number.
    package static func incremented(_ current: String) throws -> String {
        do {
            try validated(current)
        } catch let error as BuildNumberError {
            throw BuildNumberError(value: current, problem: error.problem, action: "increment")
        }
        var groups = current.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let last = groups.count - 1
        groups[last] = SemanticVersion.incrementDecimal(groups[last])
        return groups.joined(separator: ".")
    }

    /// True when `candidate` comes before `current`, comparing dot-separated groups as numbers
    /// (`9` < `10`, `2024.5.9` < `2024.5.10`); false when either is not a build number.
    package static func isLower(_ candidate: String, than current: String) -> Bool {
        guard (try? validated(candidate)) != nil, (try? validated(current)) != nil else { return false }
        let a = candidate.split(separator: ".").map { $0.drop { $0 == "0" } }
        let b = current.split(separator: ".").map { $0.drop { $0 == "0" } }
        for (x, y) in zip(a, b) where x != y {
            return x.count != y.count ? x.count < y.count : x < y
        }
        return a.count < b.count
    }

    /// The build number from the first CI variable in `ciVariables` that is set and not empty.
    ///
    /// Takes the environment as a value so callers decide where it comes from; never reads the
    /// process environment.
    /// - Returns: `nil` when none of the variables is set.
    /// - Throws: `BuildNumberError` when the first set variable does not hold a build number.
    package static func fromCI(environment: [String: String]) throws -> FromCI? {
        for variable in ciVariables {
            guard let raw = environment[variable] else { continue }
            let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { continue }
            do {
                return FromCI(variable: variable, value: try validated(value))
            } catch let error as BuildNumberError {
                throw BuildNumberError(value: value, problem: error.problem, variable: variable)
            }
        }
        return nil
    }
}

/// A text that is not a build number.
package struct BuildNumberError: ReportableError, Equatable {
    /// The text that was refused.
    package let value: String
    /// What is wrong with it.
    package let problem: String
    /// What was being done: "use" or "increment".
    package let action: String
    /// The CI variable the value came from, if any.
    package let variable: String?

    init(value: String, problem: String, action: String = "use", variable: String? = nil) {
        self.value = value
        self.problem = problem
        self.action = action
        self.variable = variable
    }

    /// Says what could not be done with which value, and why.
    package var message: String {
        "Cannot \(action) '\(quotedFromFile(value))' as a build number: \(problem)"
    }

    /// The CI variable it came from, when it came from one.
    package var info: [(key: String, value: String)] {
        variable.map { [(key: "variable", value: $0)] } ?? []
    }

    /// What a build number looks like.
    package var suggestion: String? {
        "A build number is digits, optionally in groups separated by dots, such as 42 or 2024.5.1"
    }
}
