import Foundation

/// Fails unless a command-line tool is installed in a version that satisfies a constraint.
///
/// The Linux analogue of fastlane's `ensure_xcode_version`: `ensureTool("swift", version: ">= 6.0")`.
/// Shiplane runs `TOOL --version` (or the given arguments), takes the first `N.N[.N]` in the
/// output, and checks it against every comma-separated clause: `>=`, `>`, `<=`, `<`, `=`/`==`,
/// `!=`, and `~>` (pessimistic: `~> 5.9` means `>= 5.9, < 6.0`).
package struct EnsureTool: AsyncAction {
    /// The action's name in steps and reports.
    package static let name = "ensureTool"
    /// The command to run (`swift`, `git`).
    package var tool: String
    /// The requirement the version must satisfy (`>= 6.0`, `~> 5.9`).
    package var constraint: String
    /// The arguments that make the tool print its version.
    package var versionArguments: [String]

    /// Creates the check of `tool` against `constraint`, read from the output of `tool versionArguments`.
    package init(_ tool: String, version constraint: String, versionArguments: [String] = ["--version"]) {
        self.tool = tool
        self.constraint = constraint
        self.versionArguments = versionArguments
    }

    /// The tool and the requirement.
    package var options: [StepOption] { [StepOption("tool", tool), StepOption("version", constraint)] }

    /// Returns the version found.
    package func run(in step: StepContext) async throws -> String {
        let requirement = try VersionConstraint(parsing: constraint)
        let invocation = ProcessInvocation(
            executable: tool, arguments: versionArguments, workingDirectory: step.lane.workingDirectory,
            environment: step.lane.environment.variables, timeout: 60
        )
        let result = try await step.lane.processRunner.run(invocation) { _, _ in }
        let text = result.standardOutput + "\n" + result.standardError
        guard let found = ToolVersion.first(in: text) else {
            throw ShiplaneError(
                "could not find a version number in the output of `\(tool) \(versionArguments.joined(separator: " "))`",
                info: [("output", String(text.prefix(400)).trimmingCharacters(in: .whitespacesAndNewlines))]
            )
        }
        guard requirement.isSatisfied(by: found) else {
            throw ShiplaneError(
                "\(tool) \(found) does not satisfy \(constraint)",
                info: [("found", "\(found)"), ("required", constraint)],
                suggestion: "install a version of \(tool) that satisfies \(constraint), or put it first on PATH"
            )
        }
        step.note("\(tool) \(found)")
        return found.description
    }
}

/// A tool's dotted version number, compared numerically part by part (missing parts are 0).
package struct ToolVersion: Comparable, CustomStringConvertible, Sendable {
    /// The numbers between the dots, most significant first.
    package var parts: [Int]

    /// Reads a version such as `6.3.1`; nil unless every part is a non-negative number.
    package init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        var parts: [Int] = []
        for piece in pieces {
            guard let number = Int(piece), number >= 0 else { return nil }
            parts.append(number)
        }
        guard !parts.isEmpty else { return nil }
        self.parts = parts
    }

    /// The first `N.N` or `N.N.N` in free text (`Swift version 6.3.1 (swift-6.3.1-RELEASE)` → 6.3.1).
    package static func first(in text: String) -> ToolVersion? {
        let pattern = #"(?<![\d.])(\d+\.\d+(?:\.\d+)?)"#
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return ToolVersion(String(text[range]))
    }

    /// Compares part by part; a missing part counts as 0.
    package static func < (lhs: ToolVersion, rhs: ToolVersion) -> Bool {
        let count = max(lhs.parts.count, rhs.parts.count)
        for index in 0..<count {
            let left = index < lhs.parts.count ? lhs.parts[index] : 0
            let right = index < rhs.parts.count ? rhs.parts[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    /// Equal when neither is lower, so `6.0` equals `6.0.0`.
    package static func == (lhs: ToolVersion, rhs: ToolVersion) -> Bool { !(lhs < rhs) && !(rhs < lhs) }

    /// The parts joined with dots.
    package var description: String { parts.map(String.init).joined(separator: ".") }
}

/// A version requirement such as `>= 6.0, < 7` or `~> 5.9`.
package struct VersionConstraint: Sendable {
    enum Operator: String, CaseIterable {
        case greaterOrEqual = ">=", lessOrEqual = "<=", pessimistic = "~>", notEqual = "!="
        case equalEqual = "==", greater = ">", less = "<", equal = "="
    }

    struct Clause {
        var op: Operator
        var version: ToolVersion
    }

    let clauses: [Clause]

    /// Reads a requirement of comma-separated clauses; a clause without an operator means `=`.
    /// - Throws: `ValidationFailure` naming each clause that cannot be read.
    package init(parsing text: String) throws {
        var clauses: [Clause] = []
        var problems: [String] = []
        for raw in text.split(separator: ",") {
            let clause = raw.trimmingCharacters(in: .whitespaces)
            let op = Operator.allCases.first { clause.hasPrefix($0.rawValue) }
            let rest = op.map { String(clause.dropFirst($0.rawValue.count)) } ?? clause
            guard let version = ToolVersion(rest.trimmingCharacters(in: .whitespaces)) else {
                problems.append("`\(clause)` is not a version requirement")
                continue
            }
            clauses.append(Clause(op: op ?? .equal, version: version))
        }
        if clauses.isEmpty && problems.isEmpty { problems.append("the version requirement is empty") }
        guard problems.isEmpty else {
            throw ValidationFailure(problems: problems, suggestion: "write e.g. \">= 6.0\", \">= 5.9, < 7\" or \"~> 5.9\"")
        }
        self.clauses = clauses
    }

    /// True when `version` satisfies every clause.
    package func isSatisfied(by version: ToolVersion) -> Bool {
        clauses.allSatisfy { clause in
            switch clause.op {
            case .greaterOrEqual: version >= clause.version
            case .greater: version > clause.version
            case .lessOrEqual: version <= clause.version
            case .less: version < clause.version
            case .equal, .equalEqual: version == clause.version
            case .notEqual: version != clause.version
            case .pessimistic:
                version >= clause.version && version < Self.pessimisticCeiling(clause.version)
            }
        }
    }

    /// `~> 5.9` allows up to 6.0; `~> 5.9.2` up to 5.10.
    static func pessimisticCeiling(_ version: ToolVersion) -> ToolVersion {
        var parts = version.parts
        if parts.count > 1 { parts.removeLast() }
        parts[parts.count - 1] += 1
        return ToolVersion(parts.map(String.init).joined(separator: ".")) ?? version
    }
}

extension LaneContext {
    /// Fails unless `tool --version` reports a version satisfying `constraint`; returns the version.
    @discardableResult
    public func ensureTool(
        _ tool: String, version constraint: String, file: String = #fileID, line: Int = #line
    ) async throws -> String {
        try await run(EnsureTool(tool, version: constraint), file: file, line: line)
    }
}

extension EnsureTool: DocumentedAction {
    /// How `lane.ensureTool` appears in the action catalog.
    package static let documentation = ActionDocumentation(
        domain: "Build",
        summary: "Fail unless a command-line tool's version satisfies a requirement",
        signature: "try await lane.ensureTool(_ tool: String, version constraint: String) -> String",
        parameters: [
            .init(name: "tool", type: "String", defaultValue: nil, help: "the command, run as `TOOL --version`"),
            .init(name: "version", type: "String", defaultValue: nil, help: "requirement: `>= 6.0`, `>= 5.9, < 7`, `~> 5.9`, `= 2.39.5`"),
        ],
        example: #"try await lane.ensureTool("swift", version: ">= 6.0")"#,
        dryRun: "runs (it only reads)", rollback: "nothing to undo"
    )
}
